// A NEFF as documents: the header, the container's choices, and each archive
// member as a JSON document (editable by path) or as bytes
// (docs/formats/neff.md §2). JSON members keep their key order and their
// layout (compact engine JSONs, indented others, §2.2), so that a file read
// and written again has the same members byte for byte. Also the engine
// programs' 64-byte slots (§3).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/neff/package.h"
#include "validators/core/bytes.h"

namespace accelcheck::neff::conformance {

using Json = nlohmann::ordered_json;

// How a JSON member is written: without whitespace (engine JSONs), or
// indented by `indent` spaces (4 for most documents, 2 for metrics.json and
// Trn2's info.json), with or without a final newline (§2.2).
struct JsonLayout {
  int indent = 4;  // -1: compact
  bool final_newline = false;
  bool operator==(const JsonLayout&) const = default;
};
inline constexpr JsonLayout kCompact{-1, false};

struct Member {
  std::string name;  // the archive name, "sg00/def.json"
  std::variant<Json, std::vector<uint8_t>> content;
  JsonLayout layout = {};  // for a JSON member
  char typeflag = '0';
  std::string linkname = "";
  PaxRecords pax = {};  // its pax header's records, in the pax dialect (§1.5)
  bool operator==(const Member&) const = default;
};

struct Neff {
  Header header;
  Dialect dialect = Dialect::kUstar;
  TarStamp stamp;
  HashOrder hash_order = HashOrder::kWordReversed;
  Compression compression = Compression::kGzip;
  std::vector<Member> members;
  bool operator==(const Neff&) const = default;
};

// The bytes of a member: a JSON document as its layout says (ASCII, as
// real files are).
std::vector<uint8_t> Bytes(const Member& member);

// The package of `neff`, padded to 10240-byte blocks (§1.4).
Package ToPackage(const Neff& neff);
std::vector<uint8_t> Write(const Neff& neff);

// The package as documents: a `.json` member is parsed when it parses and
// writes back to the same bytes in one of the layouts, else kept as bytes.
Neff FromPackage(const Package& package);
// ReadPackage, then FromPackage.
std::optional<Neff> Read(ByteView file, std::string* error);

// Turns a member kept as bytes into a JSON document (written with its
// `layout`) even when that changes its whitespace; false when it does not
// parse.
bool ParseAsJson(Member& member);

Member* Find(Neff& neff, std::string_view name);
const Member* Find(const Neff& neff, std::string_view name);
// The member's document, or nothing when it is absent or held as bytes.
Json* JsonOf(Neff& neff, std::string_view name);
const Json* JsonOf(const Neff& neff, std::string_view name);

// --- Programs (§3) ---

using ProgramSlot = std::array<uint8_t, 64>;

inline constexpr uint8_t kSlotWords = 0x10;        // byte 1 of every real slot (NEFF-40)
inline constexpr uint8_t kOpcodeStart = 0xB1;      // the first slot of every program (NEFF-50)
inline constexpr uint8_t kOpcodeTrigger = 0xC1;    // PSEUDO_DMA_TRIGGER (§3.2)
inline constexpr uint8_t kOpcodeSemaphore = 0xA0;  // EVENT_SEMAPHORE

// Byte offsets in a trigger slot (§3.2).
namespace trigger_offset {
inline constexpr size_t kQueue = 0x0C;
inline constexpr size_t kQueueLength = 32;
inline constexpr size_t kUseRawCount = 0x2C;
inline constexpr size_t kBlockId = 0x30;
}  // namespace trigger_offset

// A slot of `opcode`, its length byte 0x10, zero otherwise.
ProgramSlot Slot(uint8_t opcode);
// A trigger of block `block_id` on queue set `queue` (cut to 31 bytes, so
// that a NUL ends it), use_raw_count 0.
ProgramSlot TriggerSlot(std::string_view queue, uint32_t block_id);
std::vector<uint8_t> ProgramBytes(const std::vector<ProgramSlot>& slots);

struct Trigger {
  std::string queue;
  uint32_t block_id = 0;
  bool operator==(const Trigger&) const = default;
};
// The trigger slots of a program, in order (whole slots only).
std::vector<Trigger> Triggers(ByteView program);

}  // namespace accelcheck::neff::conformance
