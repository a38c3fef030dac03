#include "reference_exec/edgetpu/load.h"

#include "validators/edgetpu/edgetpu_format.h"

namespace accelcheck::edgetpu {

bool ForEachValidatedPackage(const InputBuffer& input, const ValidateContext& context,
                             DiagnosticSink& sink,
                             const std::function<void(const LoadedPackage&)>& visit) {
  ValidateGuarded(EdgetpuFormat(), input, context, sink);
  if (sink.error_count() != 0 || sink.failed()) return false;
  // The file validates: decoding it again reports nothing.
  DiagnosticSink quiet(Profile{}, "");
  size_t index = 0;
  ForEachPackage(
      input.bytes(), context, quiet,
      [&](const PackageBytes& p) {
        return DecodePackage(p.bytes, p.file_offset, p.path, context, quiet);
      },
      [&](const EdgetpuOp* op, const PackageView& view) {
        visit({index++, op == nullptr ? "" : op->path, &view});
      });
  return true;
}

const ExecutableView* MainExecutableOf(const PackageView& view) {
  for (const ExecutableView& exe : view.executables) {
    if (exe.executable->type() != dwn::ExecutableType::PARAMETER_CACHING) return &exe;
  }
  return nullptr;
}

const dwn::Layer* FindLayer(const dwn::Executable& exe, std::string_view name, bool* output) {
  for (const bool is_output : {false, true}) {
    const auto* layers = is_output ? exe.output_layers() : exe.input_layers();
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      const dwn::Layer* layer = layers->Get(i);
      if (layer->name() != nullptr && layer->name()->string_view() == name) {
        *output = is_output;
        return layer;
      }
    }
  }
  return nullptr;
}

std::string ExecutableTypeName(const dwn::Executable& exe) {
  switch (exe.type()) {
    case dwn::ExecutableType::PARAMETER_CACHING:
      return "parameter_caching";
    case dwn::ExecutableType::EXECUTION_ONLY:
      return "execution_only";
    default:
      return "stand_alone";
  }
}

}  // namespace accelcheck::edgetpu
