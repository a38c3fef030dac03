// Structure-aware libFuzzer target for the Gemini scheduler IR: the custom
// mutator parses the input, edits one value the way scheduler bugs do
// (boundary numbers, a dropped or duplicated key, a permuted array, a range
// shifted by one) and writes the document again, so that mutants stay JSON
// and reach the semantic passes. Oracles: schedule_oracle.h.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/gemini/schedule_oracle.h"

namespace {

using namespace accelcheck;
using nlohmann::json;

// Every value of the document, depth first, as pointers into it.
void Collect(json& node, std::vector<json*>* out) {
  out->push_back(&node);
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) Collect(value, out);
  } else if (node.is_array()) {
    for (json& value : node) Collect(value, out);
  }
}

void EditOne(json& doc, std::mt19937_64& rng) {
  std::vector<json*> nodes;
  Collect(doc, &nodes);
  json& node = *nodes[rng() % nodes.size()];
  static const int64_t kBoundaries[] = {
      0, -1, 1, 7, 8, 9, INT32_MAX, int64_t{1} << 31, int64_t{1} << 32, INT64_MAX, INT64_MIN};
  switch (rng() % 5) {
    case 0:  // boundary number
      if (node.is_number()) node = kBoundaries[rng() % std::size(kBoundaries)];
      break;
    case 1:  // shift by one (ranges, ids, addresses)
      // Wrapping, so that INT64_MIN - 1 is INT64_MAX rather than overflow.
      if (node.is_number_integer()) {
        node = static_cast<int64_t>(static_cast<uint64_t>(node.get<int64_t>()) +
                                    ((rng() & 1) ? 1 : UINT64_MAX));
      }
      break;
    case 2:  // drop a key
      if (node.is_object() && !node.empty()) {
        auto it = node.begin();
        std::advance(it, static_cast<long>(rng() % node.size()));
        node.erase(it);
      }
      break;
    case 3:  // duplicate an array element
      if (node.is_array() && !node.empty()) node.push_back(node[rng() % node.size()]);
      break;
    case 4:  // permute an array
      if (node.is_array() && node.size() > 1)
        std::swap(node[rng() % node.size()], node[rng() % node.size()]);
      break;
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  json doc = json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return LLVMFuzzerMutate(data, size, max_size);
  std::mt19937_64 rng(seed);
  EditOne(doc, rng);
  const std::string text = doc.dump();
  if (text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  accelcheck::fuzz::ValidateAndSimulate(accelcheck::ByteView(data, size));
  return 0;
}
