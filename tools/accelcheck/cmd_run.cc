// accelcheck run MODEL ...: runs a model on its format's reference executor.
// The model is the first argument whose content a runnable format detects;
// the executor parses the arguments itself.
#include <iostream>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"

namespace accelcheck::cli {

namespace {

constexpr std::string_view kUsage =
    "usage: accelcheck run MODEL [options]\n"
    "Runs a model on the reference executor of its format:\n"
    "  gemini  IR.json --frontend F.json [--seed S]\n"
    "  tensil  MODEL.tmodel --input X.npy... [--output-dir D]\n"
    "Run `accelcheck run MODEL --help` for the executor's options.\n";

// The format id of the first argument that reads as a model of a runnable
// format; arguments that are flags or unreadable files are passed over.
std::string RunnableFormatOf(const Args& args) {
  for (const std::string& arg : args) {
    if (arg.empty() || arg[0] == '-') continue;
    DiagnosticSink scratch(Profile{}, arg);
    const auto buffer = ReadInput(arg, Limits{}, scratch);
    if (!buffer) continue;
    const Format* format = DetectFormat(buffer->bytes());
    if (format != nullptr && (format->id() == "gemini" || format->id() == "tensil"))
      return std::string(format->id());
  }
  return {};
}

}  // namespace

int RunRun(const Args& args) {
  const std::string format = RunnableFormatOf(args);
  if (format == "gemini") return RunGemini(args);
  if (format == "tensil") return RunTensil(args);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << kUsage;
    return static_cast<int>(ExitCode::kConforms);
  }
  std::cerr << "accelcheck run: no argument is a model of a runnable format\n" << kUsage;
  return static_cast<int>(ExitCode::kUsage);
}

}  // namespace accelcheck::cli
