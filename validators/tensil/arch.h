// The Tensil architecture (.tarch, and the arch object of a .tmodel), its
// scalar data types and the instruction layout it implies (docs/formats/tensil.md §1,
// §3, §4.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace accelcheck::tensil {

enum class DataType : uint8_t { kFp8bp4, kFp16bp8, kFp18bp10, kFp32bp16, kFloat32 };

struct DataTypeInfo {
  std::string_view name;  // as spelled in JSON
  unsigned width;         // bits of the value (fixed point) or 32 (float)
  unsigned fraction;      // binary point (0 for float)
  unsigned bytes;         // bytes per scalar in .tdata and DRAM images
};

const DataTypeInfo& InfoOf(DataType type);
std::optional<DataType> DataTypeNamed(std::string_view name);

struct Architecture {
  DataType data_type = DataType::kFp16bp8;
  uint64_t array_size = 8;
  uint64_t dram0_depth = 1048576;
  uint64_t dram1_depth = 1048576;
  uint64_t local_depth = 2048;
  uint64_t accumulator_depth = 512;
  uint64_t simd_registers_depth = 1;
  uint64_t stride0_depth = 1;
  uint64_t stride1_depth = 1;
  uint64_t number_of_threads = 1;
  uint64_t thread_queue_depth = 8;

  bool operator==(const Architecture&) const = default;
};

// log2Ceil of InstructionLayout.scala: bits needed for values 0..n-1.
unsigned Log2Ceil(uint64_t n);

// Field widths of one instruction (docs/formats/tensil.md §4.1, §4.2). Every operand
// is a whole number of bytes, little-endian, in the order operand0,
// operand1, operand2, header.
struct Layout {
  unsigned tid_bits = 0;
  unsigned stride0_bits = 0, stride1_bits = 0;
  unsigned simd_operand_bits = 0;      // per SIMD source/destination
  unsigned simd_instruction_bits = 0;  // 3 operands + 4-bit op
  unsigned op0_address_bits = 0, op1_address_bits = 0, op2_address_bits = 0;
  unsigned op0_bytes = 0, op1_bytes = 0, op2_bytes = 0;
  unsigned header_bits = 0;
  unsigned instruction_bytes = 0;
};

// The layout, or nothing when the header needs more than 8 bits or an
// operand more than 64 (tensil.arch.header_width, tensil.arch.operand_width).
std::optional<Layout> LayoutOf(const Architecture& arch);

// The architecture as .tarch JSON: its 11 keys.
nlohmann::json ArchJson(const Architecture& arch);

}  // namespace accelcheck::tensil
