#include "validators/core/json_locate.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "validators/core/json_reader.h"

namespace accelcheck {
namespace {

// The pointers of the diagnostics as a tree of tokens, so that one walk over
// the document enters only the subtrees some pointer names.
struct PointerNode {
  std::map<std::string, PointerNode, std::less<>> children;
  std::vector<Diagnostic*> targets;  // the diagnostics whose pointer ends here
};

bool NeedsEscape(std::string_view key) { return key.find_first_of("~/") != key.npos; }

void AddPointer(PointerNode& root, Diagnostic& diagnostic) {
  std::string_view pointer = diagnostic.location.path;
  if (!pointer.empty() && pointer.front() != '/') return;  // not a JSON pointer
  PointerNode* node = &root;
  while (!pointer.empty()) {
    pointer.remove_prefix(1);
    const size_t end = std::min(pointer.find('/'), pointer.size());
    node = &node->children[std::string(pointer.substr(0, end))];
    pointer.remove_prefix(end);
  }
  node->targets.push_back(&diagnostic);
}

class Pinner {
 public:
  Pinner(ByteView text, uint64_t max_depth, uint64_t targets, const InputBuffer* input)
      : reader_(text, max_depth, input), remaining_(targets) {}

  void Walk(const PointerNode& node) {
    if (reader_.Peek() == JsonKind::kInvalid) return;
    const uint64_t start = reader_.offset();
    if (node.children.empty()) {
      reader_.Skip();
    } else if (reader_.Peek() == JsonKind::kObject) {
      WalkObject(node);
    } else if (reader_.Peek() == JsonKind::kArray) {
      WalkArray(node);
    } else {
      reader_.Skip();
    }
    if (reader_.failed()) return;
    for (Diagnostic* diagnostic : node.targets) Pin(*diagnostic, start, reader_.offset() - start);
  }

  bool done() const { return remaining_ == 0 || reader_.failed(); }

 private:
  void WalkObject(const PointerNode& node) {
    reader_.BeginObject();
    std::string_view key;
    uint64_t key_offset = 0;
    while (!done() && reader_.NextKey(&key, &key_offset)) {
      const auto child =
          NeedsEscape(key) ? node.children.find(PointerToken(key)) : node.children.find(key);
      child == node.children.end() ? reader_.Skip() : Walk(child->second);
    }
  }

  void WalkArray(const PointerNode& node) {
    reader_.BeginArray();
    for (uint64_t index = 0; !done() && reader_.NextElement(); ++index) {
      const auto child = node.children.find(std::to_string(index));
      child == node.children.end() ? reader_.Skip() : Walk(child->second);
    }
  }

  // A value before the reported offset is not the one the rule meant (a
  // duplicate key names two values): the offset stays.
  void Pin(Diagnostic& diagnostic, uint64_t offset, uint64_t length) {
    --remaining_;
    Location& location = diagnostic.location;
    if (location.offset && offset < *location.offset) return;
    location.offset = offset;
    location.length = length;
  }

  JsonReader reader_;
  uint64_t remaining_;
};

bool InText(const Diagnostic& diagnostic, std::string_view member) {
  return diagnostic.location.member == member;
}

void PinToValues(ByteView text, std::string_view member, const Limits& limits,
                 std::span<Diagnostic> diagnostics, const InputBuffer* input) {
  PointerNode root;
  uint64_t targets = 0;
  for (Diagnostic& diagnostic : diagnostics) {
    const bool pinnable = InText(diagnostic, member) && !diagnostic.location.length &&
                          diagnostic.rule && diagnostic.rule->category != Category::kMalformed;
    if (!pinnable) continue;
    AddPointer(root, diagnostic);
    ++targets;
  }
  if (targets == 0) return;
  Pinner pinner(text, limits.max_depth, targets, input);
  pinner.Walk(root);
}

uint64_t CountCodePoints(const uint8_t* bytes, uint64_t size) {
  return static_cast<uint64_t>(
      std::count_if(bytes, bytes + size, [](uint8_t b) { return (b & 0xc0) != 0x80; }));
}

}  // namespace

void TextPositions(ByteView text, std::span<const uint64_t> offsets,
                   std::span<TextPosition> positions, const InputBuffer* input) {
  uint64_t pos = 0;
  TextPosition at{1, 1};
  for (size_t i = 0; i < offsets.size() && i < positions.size(); ++i) {
    const uint64_t target = std::min<uint64_t>(offsets[i], text.size());
    if (input != nullptr) input->ReleaseBefore(pos);
    while (pos < target) {
      const void* newline = std::memchr(text.data() + pos, '\n', target - pos);
      if (newline == nullptr) {
        at.column += CountCodePoints(text.data() + pos, target - pos);
        pos = target;
        break;
      }
      pos = static_cast<uint64_t>(static_cast<const uint8_t*>(newline) - text.data()) + 1;
      ++at.line;
      at.column = 1;
    }
    positions[i] = at;
  }
}

void PinJsonLocations(ByteView text, std::string_view member, const Limits& limits,
                      std::span<Diagnostic> diagnostics, const InputBuffer* input) {
  // Bytes a reader discarded are made again, when a diagnostic lies in them.
  std::optional<InputBuffer> restored;
  if (input != nullptr && input->discarded() &&
      std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
        return InText(d, member) && (d.location.offset || !d.location.path.empty());
      })) {
    restored = input->Restored();
    if (!restored || restored->size() != text.size()) return;
    text = restored->bytes();
    input = &*restored;
  }
  PinToValues(text, member, limits, diagnostics, input);

  std::vector<Diagnostic*> located;
  for (Diagnostic& diagnostic : diagnostics) {
    if (InText(diagnostic, member) && diagnostic.location.offset) located.push_back(&diagnostic);
  }
  std::sort(located.begin(), located.end(), [](const Diagnostic* a, const Diagnostic* b) {
    return *a->location.offset < *b->location.offset;
  });
  std::vector<uint64_t> offsets;
  offsets.reserve(located.size());
  for (const Diagnostic* diagnostic : located) offsets.push_back(*diagnostic->location.offset);
  std::vector<TextPosition> positions(located.size());
  TextPositions(text, offsets, positions, input);
  for (size_t i = 0; i < located.size(); ++i) {
    located[i]->location.line = positions[i].line;
    located[i]->location.column = positions[i].column;
  }
}

void ReportCompanionProblems(ByteView text, const std::string& path, const Limits& limits,
                             DiagnosticSink& problems, DiagnosticSink& sink) {
  PinJsonLocations(text, "", limits, problems.MutableDiagnostics());
  for (const Diagnostic& d : problems.diagnostics()) {
    Location where = d.location;
    where.member = path;
    sink.Report(*d.rule, std::move(where), d.message);
  }
}

}  // namespace accelcheck
