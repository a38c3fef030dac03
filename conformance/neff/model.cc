#include "conformance/neff/model.h"

#include <algorithm>

namespace accelcheck::neff::conformance {
namespace {

std::string Text(const Json& json, const JsonLayout& layout) {
  std::string text = json.dump(layout.indent, ' ', /*ensure_ascii=*/true,
                               nlohmann::json::error_handler_t::replace);
  if (layout.final_newline) text += '\n';
  return text;
}

// The layouts real files use (§2.2), in the order they are tried.
constexpr JsonLayout kLayouts[] = {kCompact, {4, true}, {4, false}, {2, false}, {2, true}};

std::optional<Json> ParseJson(const std::vector<uint8_t>& bytes) {
  Json json = Json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  return json;
}

}  // namespace

std::vector<uint8_t> Bytes(const Member& member) {
  if (const auto* bytes = std::get_if<std::vector<uint8_t>>(&member.content)) return *bytes;
  const std::string text = Text(std::get<Json>(member.content), member.layout);
  return std::vector<uint8_t>(text.begin(), text.end());
}

Package ToPackage(const Neff& neff) {
  Package package;
  package.header = neff.header;
  package.dialect = neff.dialect;
  package.stamp = neff.stamp;
  package.hash_order = neff.hash_order;
  package.compression = neff.compression;
  for (const Member& member : neff.members) {
    package.entries.push_back(
        {member.name, Bytes(member), member.typeflag, member.linkname, member.pax});
  }
  return package;
}

std::vector<uint8_t> Write(const Neff& neff) { return WritePackage(ToPackage(neff)); }

Neff FromPackage(const Package& package) {
  Neff neff;
  neff.header = package.header;
  neff.dialect = package.dialect;
  neff.stamp = package.stamp;
  neff.hash_order = package.hash_order;
  neff.compression = package.compression;
  for (const TarEntry& entry : package.entries) {
    Member member{entry.name, entry.data, {}, entry.typeflag, entry.linkname, entry.pax};
    if (entry.name.ends_with(".json")) {
      if (std::optional<Json> json = ParseJson(entry.data)) {
        for (const JsonLayout& layout : kLayouts) {
          const std::string text = Text(*json, layout);
          if (std::equal(text.begin(), text.end(), entry.data.begin(), entry.data.end())) {
            member.content = std::move(*json);
            member.layout = layout;
            break;
          }
        }
      }
    }
    neff.members.push_back(std::move(member));
  }
  return neff;
}

std::optional<Neff> Read(ByteView file, std::string* error) {
  const std::optional<Package> package = ReadPackage(file, error);
  if (!package) return std::nullopt;
  return FromPackage(*package);
}

bool ParseAsJson(Member& member) {
  const auto* bytes = std::get_if<std::vector<uint8_t>>(&member.content);
  if (!bytes) return true;
  std::optional<Json> json = ParseJson(*bytes);
  if (!json) return false;
  member.content = std::move(*json);
  return true;
}

Member* Find(Neff& neff, std::string_view name) {
  const auto it = std::find_if(neff.members.begin(), neff.members.end(),
                               [&](const Member& m) { return m.name == name; });
  return it == neff.members.end() ? nullptr : &*it;
}

const Member* Find(const Neff& neff, std::string_view name) {
  return Find(const_cast<Neff&>(neff), name);
}

Json* JsonOf(Neff& neff, std::string_view name) {
  Member* member = Find(neff, name);
  return member ? std::get_if<Json>(&member->content) : nullptr;
}

const Json* JsonOf(const Neff& neff, std::string_view name) {
  return JsonOf(const_cast<Neff&>(neff), name);
}

ProgramSlot Slot(uint8_t opcode) {
  ProgramSlot slot{};
  slot[0] = opcode;
  slot[1] = kSlotWords;
  return slot;
}

ProgramSlot TriggerSlot(std::string_view queue, uint32_t block_id) {
  ProgramSlot slot = Slot(kOpcodeTrigger);
  const size_t length = std::min(queue.size(), trigger_offset::kQueueLength - 1);
  std::copy_n(queue.begin(), length, slot.begin() + trigger_offset::kQueue);
  for (size_t i = 0; i < 4; ++i) {
    slot[trigger_offset::kBlockId + i] = static_cast<uint8_t>(block_id >> (8 * i));
  }
  return slot;
}

std::vector<uint8_t> ProgramBytes(const std::vector<ProgramSlot>& slots) {
  std::vector<uint8_t> bytes;
  bytes.reserve(slots.size() * sizeof(ProgramSlot));
  for (const ProgramSlot& slot : slots) bytes.insert(bytes.end(), slot.begin(), slot.end());
  return bytes;
}

std::vector<Trigger> Triggers(ByteView program) {
  std::vector<Trigger> triggers;
  for (size_t at = 0; at + sizeof(ProgramSlot) <= program.size(); at += sizeof(ProgramSlot)) {
    if (program[at] != kOpcodeTrigger) continue;
    const ByteView queue =
        program.subspan(at + trigger_offset::kQueue, trigger_offset::kQueueLength);
    const auto end = std::find(queue.begin(), queue.end(), uint8_t{0});
    triggers.push_back({std::string(queue.begin(), end),
                        *ReadLE<uint32_t>(program, at + trigger_offset::kBlockId)});
  }
  return triggers;
}

}  // namespace accelcheck::neff::conformance
