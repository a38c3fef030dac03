// What a format's fuzz target checks besides the sanitizers, and its
// structure-aware mutator (fuzz/CMakeLists.txt builds and runs them): every
// diagnostic names a rule of the format's tables and none is an internal
// error, inspect output serialises, and one mutation in four breaks exactly
// one rule through the format's conformance provider.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "conformance/provider.h"
#include "validators/core/format.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace accelcheck::fuzz {

// With ACCELCHECK_FUZZ_RULES=FILE in the environment, the ids of the rules
// this process's diagnostics named, appended to FILE once each when it ends:
// a replay of a corpus (-runs=0) tells fuzz/campaign.py the rules it reaches.
class RuleLog {
 public:
  static RuleLog& Get() {
    static RuleLog log;
    return log;
  }
  void Add(const Diagnostic& d) {
    if (!path_.empty()) ids_.insert(d.rule->id);
  }
  ~RuleLog() {
    if (path_.empty()) return;
    std::ofstream out(path_, std::ios::app);
    for (const std::string_view id : ids_) out << id << '\n';
  }

 private:
  RuleLog() {
    if (const char* path = std::getenv("ACCELCHECK_FUZZ_RULES")) path_ = path;
  }
  std::string path_;
  std::set<std::string_view> ids_;  // of the static rule tables
};

// Whether a diagnostic in `sink` is of `rule` (a rule of the static tables).
inline bool Reports(const DiagnosticSink& sink, const Rule& rule) {
  return std::any_of(sink.diagnostics().begin(), sink.diagnostics().end(),
                     [&](const Diagnostic& d) { return d.rule == &rule; });
}

inline void CheckDiagnostics(const Format& format, const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == nullptr || FindRuleOf(format, d.rule->id) != d.rule) __builtin_trap();
    if (d.rule->category == Category::kInternal) __builtin_trap();
    RuleLog::Get().Add(d);
  }
}

// libFuzzer's -timeout bounds the time, so the budget is off.
inline DiagnosticSink Validate(const Format& format, ByteView bytes, ValidateContext context = {}) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  context.limits.time_budget_ms = 0;
  DiagnosticSink sink(Profile{}, "fuzz-input");
  format.Validate(input, context, sink);
  CheckDiagnostics(format, sink);
  return sink;
}

inline void CheckInspect(const Format& format, ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const nlohmann::json tree = format.Inspect(input, ValidateContext{}, sink);
  (void)tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  CheckDiagnostics(format, sink);
}

// LLVMFuzzerCustomMutator's body: three in four mutations stay byte-level
// (they are what finds decoder bugs); the fourth breaks one rule of
// `provider` with `mutate(bytes, rule, seed)`, which returns a variant
// holding `Mutation` (with its `bytes`) or a decline.
template <typename Mutation, typename Mutate>
size_t MutateOneRule(uint8_t* data, size_t size, size_t max_size, unsigned int seed,
                     const conformance::Provider& provider, Mutate mutate) {
  std::minstd_rand random(seed);
  if (random() % 4 != 0) return LLVMFuzzerMutate(data, size, max_size);
  const auto& cases = provider.Cases();
  if (cases.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const Rule& rule = *cases[random() % cases.size()].rule;
  const auto mutated = mutate(ByteView(data, size), rule, random());
  const auto* bytes = std::get_if<Mutation>(&mutated);
  if (bytes == nullptr || bytes->bytes.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes->bytes.data(), bytes->bytes.size());
  return bytes->bytes.size();
}

}  // namespace accelcheck::fuzz
