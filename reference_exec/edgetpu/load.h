// The packages of a validated Edge TPU file, for the executor: each run
// starts from a file that validates, and works on one package at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "validators/core/format.h"
#include "validators/edgetpu/package.h"

namespace accelcheck::edgetpu {

// One package of the file: its place among the file's packages, and the
// object path of the operator that holds it ("" for a bare package).
struct LoadedPackage {
  size_t index = 0;
  std::string op_path;
  const PackageView* view = nullptr;
};

// Validates `input` (reporting to `sink`) and, when it has no error, calls
// `visit` with each of its packages in file order; the views live for the
// call only. False when the file has errors or could not be checked.
bool ForEachValidatedPackage(const InputBuffer& input, const ValidateContext& context,
                             DiagnosticSink& sink,
                             const std::function<void(const LoadedPackage&)>& visit);

// The executable that runs each inference: the STAND_ALONE or
// EXECUTION_ONLY one (EDG-30).
const ExecutableView* MainExecutableOf(const PackageView& view);

// A layer of `exe` by name, inputs first; `output` says which it is.
const dwn::Layer* FindLayer(const dwn::Executable& exe, std::string_view name, bool* output);

// "stand_alone", "parameter_caching", "execution_only": how run outputs name
// an executable.
std::string ExecutableTypeName(const dwn::Executable& exe);

}  // namespace accelcheck::edgetpu
