// A small valid .pte and its real-file quirk, for the tests of what checks
// whole files (the command line, the embedding interface).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"

namespace accelcheck::test {

// z = x + y with y a constant, so that the file has an extended header and a
// constant segment.
inline std::vector<uint8_t> SmallProgram() {
  return pte::Serialize(pte::BuildRecipe(nlohmann::json::parse(R"({"plans": [{
      "name": "forward",
      "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
                 {"name": "y", "tensor": {"dtype": "float", "sizes": [2, 3], "memory": "constant",
                                          "data": [1, 2, 3, 4, 5, 6]}},
                 {"name": "alpha", "int": 1},
                 {"name": "z", "tensor": {"dtype": "float", "sizes": [2, 3]}}],
      "inputs": ["x"], "outputs": ["z"],
      "instructions": [{"kernel": "aten::add.out", "args": ["x", "y", "alpha", "z"]}]}]})")));
}

// The same program with nonzero bytes after its end: a real-file quirk, a
// warning by default and an error under --strict (pte.file.trailing_bytes).
inline std::vector<uint8_t> WithTrailingBytes() {
  std::vector<uint8_t> bytes = SmallProgram();
  bytes.insert(bytes.end(), 16, 0x5a);
  return bytes;
}

}  // namespace accelcheck::test
