// The formats: the one list of them in C++ (docs/ARCHITECTURE.md "Adding a
// format"). An entry ties a format's validator to its conformance layer and
// to the subcommands it implements besides validate, inspect, rules and
// mutate. It references every layer, so it sits above them all, in the
// command-line library; the layers below take what they need as parameters.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/provider.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/golden.h"
#include "validators/core/format.h"

namespace accelcheck {

// A format's conformance layer: its bases and mutation cases, which the
// suite, `mutate` and the per-rule tests use (docs/ARCHITECTURE.md
// "Conformance"). Null for a format without a mutator.
using FormatConformance = const conformance::Provider*;

// A format's own implementation of a subcommand. It gets the arguments after
// the command name (for generate, after FORMAT) and parses them itself.
using FormatCommand = ExitCode (*)(const cli::Args& args);

// What `inspect --disasm` prints: the program as text, or nothing with the
// reasons in `sink`.
using Disassembler = std::optional<std::string> (*)(const InputBuffer& input,
                                                    const ValidateContext& context,
                                                    DiagnosticSink& sink);

struct FormatEntry {
  const Format& validator;
  FormatConformance conformance;
  // Null when the format has no such command.
  Disassembler disassemble = nullptr;
  FormatCommand run = nullptr;
  FormatCommand simulate = nullptr;
  FormatCommand generate = nullptr;
  FormatCommand assemble = nullptr;
  // How `accelcheck golden` runs the format's cases (golden/README.md).
  const golden::GoldenFormat* golden = nullptr;

  std::string_view id() const { return validator.id(); }
};

// Every format, in the order detection tries them and listings show them.
std::span<const FormatEntry> Formats();

// Just the validators, in the same order (for the conformance suite).
std::vector<const Format*> Validators();

// The conformance providers of the formats that have one, in the same order.
std::vector<const conformance::Provider*> Providers();

const FormatEntry* FindFormat(std::string_view id);
// The first format that recognises `bytes` by content.
const FormatEntry* DetectFormat(ByteView bytes);
// The validator `bytes` are checked with: `forced` when given, else the
// detected format's; null when no format recognises them.
const Format* ValidatorFor(ByteView bytes, const Format* forced);
// Reports core.format.unknown for content no format recognises; `to_force`
// says how the caller names a format instead ("--format ID").
void ReportUnknownFormat(std::string_view to_force, DiagnosticSink& sink);

// The first format that Detect refuses but that `bytes` (the file at
// `path`) resembles by name or first bytes: a damaged file of that format.
const FormatEntry* ResembledFormat(const std::string& path, ByteView bytes);

// What `bytes` are when they are a format accelcheck recognises but does not
// validate yet (a gzip stream inside the inflated input), or nothing.
std::optional<std::string_view> UnsupportedFormat(ByteView bytes);

// Looks a rule up by id over the core table and every format's table.
const Rule* FindRule(std::string_view id);

// "gemini, tensil": the ids of the formats for which `has` holds.
template <typename Predicate>
std::string FormatIds(Predicate has) {
  std::string ids;
  for (const FormatEntry& entry : Formats()) {
    if (!has(entry)) continue;
    if (!ids.empty()) ids += ", ";
    ids += entry.id();
  }
  return ids;
}

// "pte, tensil, gemini": every format's id.
inline std::string FormatIds() {
  return FormatIds([](const FormatEntry&) { return true; });
}

}  // namespace accelcheck
