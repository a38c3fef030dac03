// The Tensil format: .tarch and .tmodel detected by content, the .tprog and
// .tdata a .tmodel names found next to it (or named with --data).
#pragma once

#include <optional>
#include <string>

#include "validators/core/format.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/manifest.h"

namespace accelcheck::tensil {

const Format& TensilFormat();

// A .tmodel with its program and constants, decoded and validated: what the
// disassembler and the emulator start from.
struct LoadedModel {
  Model model;
  Layout layout;
  InputBuffer program;
  InputBuffer constants;  // consts[0]
};

// Validates a .tmodel and its companions into `sink`; the loaded model when
// nothing blocking was found.
std::optional<LoadedModel> LoadModel(const InputBuffer& tmodel, const ValidateContext& context,
                                     DiagnosticSink& sink);

// The program of a .tmodel (validated with its companions) or of a .tprog
// (read with a companion .tarch or .tmodel) as assembly, one instruction per
// line; nothing, with the reasons in `sink`, when it does not decode.
std::optional<std::string> DisassembleInput(const InputBuffer& input,
                                            const ValidateContext& context, DiagnosticSink& sink);

// The architecture a standalone .tprog is read with: the first .tarch or
// .tmodel among the companions.
std::optional<Architecture> CompanionArchitecture(const ValidateContext& context,
                                                  DiagnosticSink& sink);

}  // namespace accelcheck::tensil
