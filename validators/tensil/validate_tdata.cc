// .tdata rules (docs/formats/tensil.md §7.3): the length, and the encodings whose
// bit patterns are not all valid.
#include <bit>
#include <cmath>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/validate.h"

namespace accelcheck::tensil {

namespace {

// TNS-9, TNS-14
bool CheckLength(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink) {
  const FileEntry& entry = model.consts[index];
  const DataTypeInfo& type = InfoOf(model.arch.data_type);
  const auto scalars = CheckedMul(entry.size, model.arch.array_size);
  const auto expected = scalars ? CheckedMul(*scalars, type.bytes) : std::nullopt;
  if (expected && *expected == tdata.size()) return true;
  sink.Report(rules::kTdataSize, model.offsets.At(Str("/consts/", index)),
              Str(Quoted(entry.file_name), " is ", Hex(tdata.size()), " bytes, expected size ",
                  Hex(entry.size), " x array_size ", model.arch.array_size, " x ", type.bytes,
                  " bytes = ", expected ? Hex(*expected) : std::string("(overflow)")));
  return false;
}

// A word of the .tdata of consts[index]: its bytes in that file, at the
// manifest entry that names it.
Location WordAt(const Model& model, size_t index, uint64_t offset) {
  return Location{offset, 4, Str("/consts/", index), model.consts[index].file_name};
}

// TNS-15: Fixed18bp10.toBytes writes bits 18..31 as 0.
void CheckFp18Words(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink) {
  for (uint64_t offset = 0; offset + 4 <= tdata.size(); offset += 4) {
    const uint32_t word = *ReadLE<uint32_t>(tdata, offset);
    if ((word >> 18) == 0) continue;
    sink.Report(rules::kTdataFp18Padding, WordAt(model, index, offset),
                Str("FP18BP10 word ", Hex(word), " has bits 18..31 set"));
  }
}

// TNS-15: FLOAT32 is big-endian (DataOutputStream.writeFloat).
void CheckFloatsFinite(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink) {
  for (uint64_t offset = 0; offset + 4 <= tdata.size(); offset += 4) {
    const uint32_t bits = uint32_t{tdata[offset]} << 24 | uint32_t{tdata[offset + 1]} << 16 |
                          uint32_t{tdata[offset + 2]} << 8 | tdata[offset + 3];
    if (std::isfinite(std::bit_cast<float>(bits))) continue;
    sink.Report(rules::kTdataNonFinite, WordAt(model, index, offset),
                Str("FLOAT32 constant ", Hex(bits), " is not finite"));
  }
}

}  // namespace

void CheckConstants(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink) {
  if (!CheckLength(tdata, model, index, sink)) return;
  if (model.arch.data_type == DataType::kFp18bp10) CheckFp18Words(tdata, model, index, sink);
  if (model.arch.data_type == DataType::kFloat32) CheckFloatsFinite(tdata, model, index, sink);
}

}  // namespace accelcheck::tensil
