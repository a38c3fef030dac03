#include "validators/tensil/arch.h"

#include <algorithm>
#include <bit>

namespace accelcheck::tensil {

namespace {

constexpr DataTypeInfo kDataTypes[] = {
    {"FP8BP4", 8, 4, 1},     {"FP16BP8", 16, 8, 2},
    {"FP18BP10", 18, 10, 4},  // stored in a 32-bit word, docs/formats/tensil.md §3
    {"FP32BP16", 32, 16, 4}, {"FLOAT32", 32, 0, 4},
};

unsigned Round8(unsigned bits) { return (bits + 7) / 8 * 8; }

}  // namespace

const DataTypeInfo& InfoOf(DataType type) { return kDataTypes[static_cast<size_t>(type)]; }

std::optional<DataType> DataTypeNamed(std::string_view name) {
  for (size_t i = 0; i < std::size(kDataTypes); ++i) {
    if (kDataTypes[i].name == name) return static_cast<DataType>(i);
  }
  return std::nullopt;
}

unsigned Log2Ceil(uint64_t n) { return n <= 1 ? 0 : static_cast<unsigned>(std::bit_width(n - 1)); }

std::optional<Layout> LayoutOf(const Architecture& arch) {
  Layout l;
  l.tid_bits = Log2Ceil(arch.number_of_threads);
  // InstructionLayout writes round8(tid + 3 + tid); the opcode (3 bits) and
  // flags (4 bits) need tid + 7 <= 8, which holds for 1 or 2 threads only.
  if (l.tid_bits + 7 > 8) return std::nullopt;
  l.header_bits = 8;
  const unsigned local = Log2Ceil(arch.local_depth);
  const unsigned acc = Log2Ceil(arch.accumulator_depth);
  const unsigned dram0 = Log2Ceil(arch.dram0_depth);
  const unsigned dram1 = Log2Ceil(arch.dram1_depth);
  l.stride0_bits = Log2Ceil(arch.stride0_depth);
  l.stride1_bits = Log2Ceil(arch.stride1_depth);
  l.simd_operand_bits =
      arch.simd_registers_depth >= UINT64_MAX ? 64 : Log2Ceil(arch.simd_registers_depth + 1);
  l.simd_instruction_bits = 3 * l.simd_operand_bits + 4;
  l.op0_address_bits = std::max(local, acc);
  l.op1_address_bits = std::max({local, dram0, dram1, acc});
  l.op2_address_bits = std::max({std::min(local, acc), std::min(local, dram0),
                                 std::min(local, dram1), l.simd_instruction_bits});
  const unsigned op0 = Round8(l.op0_address_bits + l.stride0_bits);
  const unsigned op1 = Round8(l.op1_address_bits + l.stride1_bits);
  const unsigned op2 = Round8(l.op2_address_bits);
  if (op0 > 64 || op1 > 64 || op2 > 64) return std::nullopt;
  l.op0_bytes = op0 / 8;
  l.op1_bytes = op1 / 8;
  l.op2_bytes = op2 / 8;
  l.instruction_bytes = (l.header_bits + op0 + op1 + op2) / 8;
  return l;
}

nlohmann::json ArchJson(const Architecture& a) {
  return nlohmann::json{{"data_type", InfoOf(a.data_type).name},
                        {"array_size", a.array_size},
                        {"dram0_depth", a.dram0_depth},
                        {"dram1_depth", a.dram1_depth},
                        {"local_depth", a.local_depth},
                        {"accumulator_depth", a.accumulator_depth},
                        {"simd_registers_depth", a.simd_registers_depth},
                        {"stride0_depth", a.stride0_depth},
                        {"stride1_depth", a.stride1_depth},
                        {"number_of_threads", a.number_of_threads},
                        {"thread_queue_depth", a.thread_queue_depth}};
}

}  // namespace accelcheck::tensil
