// The driver's linker (docs/formats/edgetpu.md §6.1): each instruction
// bitstream copied and patched at its field offsets with the device
// addresses of the inputs and outputs (per batch element), the parameters
// and the scratch buffer, both 32-bit halves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "validators/edgetpu/package.h"

namespace accelcheck::edgetpu {

// The device address of every buffer an executable names.
struct Addresses {
  uint64_t parameters = 0;
  uint64_t scratch = 0;
  // By layer name, one address per batch element.
  std::map<std::string, std::vector<uint64_t>, std::less<>> inputs, outputs;
};

// The addresses a run uses unless told otherwise: each buffer in pages of
// its own from 0x8'0000'0000 up (above 4 GiB, so that both halves of a patch
// carry bits), in the driver's linking order: scratch, parameters, then
// each input and output layer, batch element by batch element, for the
// batch elements its field offsets name (at least one).
Addresses DefaultAddresses(const dwn::Executable& exe);

// Sets one address from "BUF=ADDR": BUF is parameters, scratch,
// input:NAME[:BATCH] or output:NAME[:BATCH] (batch 0 when left out) naming
// a buffer `addresses` has, ADDR hex with 0x or decimal. The reason when it
// cannot.
std::optional<std::string> SetAddress(const std::string& spec, Addresses& addresses);

// DefaultAddresses(exe) with each of `specs` ("BUF=ADDR") set; nothing, with
// the reason, when one cannot be.
std::optional<Addresses> AddressesOf(const dwn::Executable& exe,
                                     const std::vector<std::string>& specs, std::string* error);

// Writes `value` at bit `bit` of `chunk`: bit i of the value to bit
// bit + i, bit n being bit n % 8 of byte n / 8; the other bits keep theirs.
// The window must lie inside the chunk.
void WriteBits(std::span<uint8_t> chunk, uint64_t bit, uint32_t value);

// One patch the linker made.
struct AppliedPatch {
  uint32_t field_offset = 0;  // index in the chunk's field_offsets
  dwn::Description desc = dwn::Description::BASE_ADDRESS_OUTPUT_ACTIVATION;
  std::string name;  // the layer, for inputs and outputs
  int32_t batch = 0;
  bool upper = false;  // UPPER_32BIT: the address's high half
  uint64_t bit = 0;
  uint64_t address = 0;
  uint32_t value = 0;
};

struct LinkedChunk {
  std::vector<uint8_t> bytes;
  std::vector<AppliedPatch> patches;  // in the order the driver applies them
};

// Why a chunk cannot be linked: the rule the validator reports for it, and
// what is wrong.
struct LinkError {
  std::string rule;  // "edgetpu.link.bounds"
  std::string message;
};

// Links every chunk of `exe` in the driver's order (scratch, parameters,
// inputs, outputs). Refuses, without writing, a patch outside its chunk or
// one that names a buffer `addresses` lacks.
std::optional<std::vector<LinkedChunk>> Link(const dwn::Executable& exe, const Addresses& addresses,
                                             LinkError* error);

}  // namespace accelcheck::edgetpu
