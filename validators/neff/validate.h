// The NEFF checks after the container (docs/formats/neff.md §4 C to H): the
// JSON members decoded, each subgraph's def.json, engine JSONs and programs,
// and the references between members. Each diagnostic is located in the
// member it concerns, at its offset there and JSON pointer.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/core/text.h"
#include "validators/neff/container.h"
#include "validators/neff/documents.h"

namespace accelcheck::neff {

// Diagnostics per member, each in a sink of its own until the end, when
// they are pinned to the JSON value their pointer names and reported with
// the member's name.
class MemberReports {
 public:
  DiagnosticSink& For(std::string_view member);
  uint64_t blocking_count() const;
  void Flush(const Container& container, const Limits& limits, DiagnosticSink& sink);

 private:
  std::vector<std::pair<std::string, std::unique_ptr<DiagnosticSink>>> sinks_;
};

// The state-buffer geometry of a kelf target (§2.13, §7.1).
struct StateBuffer {
  uint64_t partitions = 128;
  uint64_t partition_bytes = uint64_t{1} << 18;
  bool known = false;  // the target's partition size is known
};
StateBuffer StateBufferOf(std::string_view target);
inline constexpr uint64_t kPartitionShift = 18;

// One DMA block of an engine as the trigger checks need it.
struct BlockKey {
  size_t queue_index = 0;  // the place of its queue set in def.json's
  int64_t id = 0;
  uint64_t index = 0;
  uint64_t offset = 0;
};

struct Subgraph {
  std::string name = {};        // the kelf graph's name: its directory
  std::string definition = {};  // the def.json member
  std::optional<Definition> def = {};
  std::optional<TensorMap> tensor_map = {};
  std::string tensor_map_member = {};
  // Per engine, filled by the engine checks.
  std::array<std::vector<BlockKey>, kEngineCount> blocks = {};
  std::array<std::string, kEngineCount> engine_member = {};
  uint64_t block_count = 0;

  // A name def.json gives, as a member path.
  std::string Member(std::string_view file) const { return Str(name_prefix(), file); }
  std::string name_prefix() const { return name.empty() ? "" : name + "/"; }
};

struct Neff {
  const Container& container;
  const ValidateContext& context;
  MemberReports& reports;
  Header header = {};
  std::optional<Graph> graph = {};
  std::string kelf_member = {};
  std::optional<Kelf> kelf = {};
  std::optional<Info> info = {};
  StateBuffer state_buffer = {};
  std::vector<Subgraph> subgraphs = {};
  std::set<std::string, std::less<>> reached = {};  // members some reference reaches
  // Each member name a subgraph's document gives, with that document
  // (NEFF-54).
  std::vector<std::pair<std::string, Reference>> names = {};

  DiagnosticSink& In(std::string_view member) const { return reports.For(member); }
  // Marks `member` as reached; true when the archive has it.
  bool Reach(const std::string& member) {
    reached.insert(member);
    return container.Find(member) != nullptr;
  }
};

// A JSON member's bytes once they are checked to be UTF-8 (NEFF-20); null
// when the archive has no such member or it is not UTF-8 (reported).
const tar::Member* JsonMember(Neff& neff, const std::string& name);

// §4 C: neff.json, the kelf file and info.json, with the header fields
// they repeat (NEFF-9 to NEFF-11, NEFF-21, NEFF-22, NEFF-42, NEFF-55).
void DecodeTopLevel(Neff& neff);
void CheckTopLevel(Neff& neff);

// §4 D: each subgraph's def.json (NEFF-23 to NEFF-32, NEFF-28's members).
void DecodeDefinitions(Neff& neff);
void CheckDefinition(Neff& neff, Subgraph& subgraph);

// §4 E, F and H: each engine JSON's blocks and descriptors, read one block
// at a time (NEFF-33 to NEFF-39, NEFF-47, NEFF-49, NEFF-51 to NEFF-53),
// then the engine's program and its triggers.
void CheckEngines(Neff& neff, Subgraph& subgraph);

// §4 F: engine `e`'s program member (empty when def.json names none), and
// its slots and triggers against the engine's blocks (NEFF-40, NEFF-41,
// NEFF-48, NEFF-50).
std::string ProgramMember(const Subgraph& subgraph, size_t e);
void CheckProgram(Neff& neff, const Subgraph& subgraph, size_t e);

// §4 G and H: tensor maps, activation and DVE tables, unreached members,
// reference names and the subgraphs that move data (NEFF-43 to NEFF-45,
// NEFF-54, NEFF-56).
void CheckTensorMap(Neff& neff, Subgraph& subgraph);
void CheckMembers(Neff& neff);

// Every check after the container, reporting to `sink`.
void ValidateMembers(const Container& container, const ValidateContext& context,
                     DiagnosticSink& sink);

// The element size of a documented dtype (§2.12), or 0 for another name.
uint64_t DtypeBytes(std::string_view dtype);

}  // namespace accelcheck::neff
