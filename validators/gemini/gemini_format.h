// The Gemini scheduler IR format (docs/formats/gemini.md): detection, validation
// (with an optional frontend IR companion) and inspection.
#pragma once

#include <optional>

#include "validators/core/format.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini {

const Format& GeminiFormat();

// The frontend IR named among the companions (--data / --frontend), decoded
// and validated by the frontend rules: the first that looks like one, or the
// only companion; without companions, <stem>.frontend.json beside the
// schedule. Nothing when there is none, when it cannot be read
// (core.io.read) or when it breaks a rule of default severity error; its
// problems go to `sink` located in the frontend file (Location::member).
std::optional<Frontend> LoadFrontend(const ValidateContext& context, DiagnosticSink& sink);

// Decodes and validates; the decoded IR is returned when decoding succeeded
// (the executors use it only when the sink holds no blocking diagnostic).
std::optional<Ir> DecodeAndValidate(ByteView text, const ValidateContext& context,
                                    const Frontend* frontend, DiagnosticSink& sink,
                                    const InputBuffer* input = nullptr);

// The same for an IR of the SET generator's dialect.
std::optional<set::Ir> DecodeAndValidateSet(ByteView text, const ValidateContext& context,
                                            const Frontend* frontend, DiagnosticSink& sink,
                                            const InputBuffer* input = nullptr);

}  // namespace accelcheck::gemini
