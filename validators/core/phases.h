// The phase discipline every format follows (docs/ARCHITECTURE.md "Phases"):
// passes run in order, a pass runs only when the earlier ones reported
// nothing blocking (it relies on their invariants), and the file's time
// budget, started by the caller in ValidateContext::deadline, is checked
// between passes and in long loops, with one report when it runs out.
#pragma once

#include <span>

#include "validators/core/format.h"
#include "validators/core/sink.h"

namespace accelcheck {

// Reports core.limit.time-budget-ms (once per file) when the budget has run
// out; true then, and the caller stops.
bool OutOfTime(const ValidateContext& context, DiagnosticSink& sink);

// Passes in groups: the passes of a group rely only on what the earlier
// groups checked, so all of them run and report; the next group runs only
// when the group left the blocking count unchanged. True when every group ran.
template <typename State>
using PassGroup = std::span<void (*const)(const State&)>;

template <typename State>
bool RunPassGroups(std::span<const PassGroup<State>> groups, const State& state,
                   const ValidateContext& context, DiagnosticSink& sink) {
  for (const PassGroup<State> group : groups) {
    if (OutOfTime(context, sink)) return false;
    const uint64_t before = sink.blocking_count();
    for (const auto pass : group) pass(state);
    if (sink.blocking_count() != before) return false;
  }
  return true;
}

// Runs `passes` over `state` in order while each leaves the blocking count
// unchanged and the budget lasts: groups of one pass.
// True when every pass ran.
template <typename State>
bool RunPasses(std::span<void (*const)(const State&)> passes, const State& state,
               const ValidateContext& context, DiagnosticSink& sink) {
  for (const auto& pass : passes) {
    const PassGroup<State> one(&pass, 1);
    if (!RunPassGroups<State>(std::span(&one, 1), state, context, sink)) return false;
  }
  return true;
}

}  // namespace accelcheck
