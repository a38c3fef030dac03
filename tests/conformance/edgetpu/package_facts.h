// Test helpers: the packages of a .tflite file found as the runtime finds
// them, verified at every level as the runtime verifies them, and the
// layout facts docs/formats/edgetpu.md §5.2 gives for real packages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include "conformance/edgetpu/model.h"
#include "tests/support/corpus.h"
#include "validators/core/bytes.h"
#include "validators/edgetpu/schema/executable_generated.h"
#include "validators/edgetpu/schema/tflite_generated.h"

namespace accelcheck::edgetpu::testutil {

inline std::vector<uint8_t> Slurp(const std::filesystem::path& path) {
  return test::ReadBytes(path);
}

// Where the corpus keeps real Edge TPU files; empty when it is absent.
inline std::vector<std::filesystem::path> CorpusFiles() {
  return test::CorpusFiles("edgetpu", ".tflite");
}

inline bool IsLegacy(const std::filesystem::path& path) {
  return path.filename().string().find("LEGACY") != std::string::npos;
}

struct PackageAt {
  uint64_t offset = 0;  // in the file
  std::vector<uint8_t> bytes;
};

// Each Edge TPU operator's package, by the lookup the runtime does
// (docs/formats/edgetpu.md §2.2, §2.3): the operator code named edgetpu-custom-op,
// the custom options as a FlexBuffer map, "4" as a string. Only for files
// whose model verifies (flexbuffers itself checks nothing).
inline std::vector<PackageAt> PackagesIn(ByteView file) {
  std::vector<PackageAt> out;
  const InputBuffer copy = InputBuffer::Copy(file);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!accelcheck::tflite::VerifyModelBuffer(verifier)) return out;
  const auto* model = accelcheck::tflite::GetModel(copy.data());
  if (!model->operator_codes() || !model->subgraphs()) return out;
  for (const auto* graph : *model->subgraphs()) {
    if (!graph->operators()) continue;
    for (const auto* op : *graph->operators()) {
      if (op->opcode_index() >= model->operator_codes()->size()) continue;
      const auto* code = model->operator_codes()->Get(op->opcode_index());
      if (!code->custom_code() || code->custom_code()->str() != "edgetpu-custom-op") continue;
      const auto* options = op->custom_options();
      if (!options) continue;
      const auto package =
          flexbuffers::GetRoot(options->data(), options->size()).AsMap()["4"].AsString();
      // A value that is not a string reads as the empty string.
      if (package.length() == 0) {
        out.push_back({});
        continue;
      }
      const auto* begin = reinterpret_cast<const uint8_t*>(package.c_str());
      out.push_back({static_cast<uint64_t>(begin - copy.data()),
                     std::vector<uint8_t>(begin, begin + package.length())});
    }
  }
  return out;
}

struct ExecutableFacts {
  uint64_t offset = 0;  // of its bytes in the package
  uint64_t size = 0;
  std::optional<int16_t> type;
  std::optional<uint64_t> parameters_offset;  // of the parameters' data, in the package
  uint64_t parameters_size = 0;
};

struct PackageFacts {
  uint64_t size = 0;
  uint64_t root_table = 0;
  uint64_t multi_offset = 0;
  uint64_t multi_size = 0;
  std::vector<ExecutableFacts> executables;  // in vector order
};

// Verifies the package as the runtime does (docs/formats/edgetpu.md §2.5: the package with its
// identifier, then the multi-executable and each executable without one, in place in a copy of the
// package) and measures where its parts lie. Nothing when a level fails to verify.
inline std::optional<PackageFacts> FactsOf(ByteView package) {
  namespace pd = ::platforms::darwinn;
  const InputBuffer copy = InputBuffer::Copy(package);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!pd::VerifyPackageBuffer(verifier)) return std::nullopt;
  const pd::Package* root = pd::GetPackage(copy.data());
  const auto* multi = root->serialized_multi_executable();
  if (!multi) return std::nullopt;
  PackageFacts facts;
  facts.size = copy.size();
  facts.root_table = *ReadLE<uint32_t>(copy.bytes(), 0);
  facts.multi_offset = static_cast<uint64_t>(multi->data() - copy.data());
  facts.multi_size = multi->size();
  flatbuffers::Verifier multi_verifier(multi->data(), multi->size());
  if (!multi_verifier.VerifyBuffer<pd::MultiExecutable>(nullptr)) return std::nullopt;
  const auto* strings =
      flatbuffers::GetRoot<pd::MultiExecutable>(multi->data())->serialized_executables();
  if (!strings) return std::nullopt;
  for (const flatbuffers::String* s : *strings) {
    const auto* data = reinterpret_cast<const uint8_t*>(s->data());
    flatbuffers::Verifier exe_verifier(data, s->size());
    if (!exe_verifier.VerifyBuffer<pd::Executable>(nullptr)) return std::nullopt;
    const auto* e = flatbuffers::GetRoot<pd::Executable>(data);
    ExecutableFacts exe;
    exe.offset = static_cast<uint64_t>(data - copy.data());
    exe.size = s->size();
    if (reinterpret_cast<const flatbuffers::Table*>(e)->CheckField(pd::Executable::VT_TYPE))
      exe.type = static_cast<int16_t>(e->type());
    if (const auto* p = e->parameters()) {
      exe.parameters_offset = static_cast<uint64_t>(p->data() - copy.data());
      exe.parameters_size = p->size();
    }
    facts.executables.push_back(exe);
  }
  return facts;
}

// The compiler's layout (docs/formats/edgetpu.md §5.2, EDG-86, EDG-87): the package
// and every executable a multiple of 4096 bytes, the multi-executable at
// 4096 with the root table just below it, every executable and every
// parameters vector on a 4096-byte boundary, the last executable of the
// vector (the PC one of [EO, PC]) first at 8192.
inline void ExpectCompilerLayout(const PackageFacts& facts, const std::string& name) {
  EXPECT_EQ(facts.size % 4096, 0u) << name;
  EXPECT_EQ(facts.multi_offset, 4096u) << name;
  EXPECT_EQ(facts.multi_size % 4096, 0u) << name;
  EXPECT_GE(facts.root_table, 3968u) << name;
  EXPECT_LT(facts.root_table, 4096u) << name;
  ASSERT_FALSE(facts.executables.empty()) << name;
  for (const ExecutableFacts& e : facts.executables) {
    EXPECT_EQ(e.offset % 4096, 0u) << name;
    EXPECT_EQ(e.size % 4096, 0u) << name;
    ASSERT_TRUE(e.parameters_offset) << name;
    EXPECT_EQ(*e.parameters_offset % 4096, 0u) << name << " parameters of " << e.parameters_size;
  }
  EXPECT_EQ(facts.executables.back().offset, 8192u) << name;
  for (size_t i = 1; i < facts.executables.size(); ++i)
    EXPECT_GT(facts.executables[i - 1].offset, facts.executables[i].offset) << name;
  if (facts.executables.size() == 2) {
    EXPECT_EQ(facts.executables[0].type, model::kExecutionOnly) << name;
    EXPECT_EQ(facts.executables[1].type, model::kParameterCaching) << name;
  }
}

}  // namespace accelcheck::edgetpu::testutil
