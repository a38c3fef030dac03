// The JSON documents: .tarch and .tmodel (docs/formats/tensil.md §1, §2), decoded
// with every problem reported at its byte offset and JSON pointer, and the
// checks on their values (§7.1, §7.2).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/json_decoder.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/tensil/arch.h"

namespace accelcheck::tensil {

struct FileEntry {
  std::string file_name;
  uint64_t base = 0;  // vectors
  uint64_t size = 0;  // vectors
};

struct IoEntry {
  std::string name;
  uint64_t base = 0;  // DRAM0 vectors
  uint64_t size = 0;
};

struct Model {
  std::string name;
  std::string prog_file;
  std::optional<uint64_t> prog_size;  // bytes; absent in the legacy schema
  std::vector<FileEntry> consts;
  std::vector<IoEntry> inputs, outputs;
  Architecture arch;
  bool load_consts_to_local = false;
  JsonOffsets offsets;  // of every value decoded
};

// True for a JSON object that names the architecture keys: how .tarch and
// .tmodel are told from other JSON documents.
bool LooksLikeTensilJson(ByteView bytes);

// True when the document's top-level object has a "prog" or "consts" key: a
// .tmodel rather than a .tarch.
bool IsModelDocument(ByteView bytes, const Limits& limits);

// Decodes a .tarch and checks its values (TNS-1 to TNS-4). Nothing when a
// value needed to lay out instructions is missing or wrong.
std::optional<Architecture> DecodeArchitectureDocument(ByteView bytes, const Limits& limits,
                                                       DiagnosticSink& sink);

// Decodes a .tmodel and checks the manifest's own values and its
// architecture (TNS-1 to TNS-4, TNS-6, TNS-8, TNS-10 to TNS-13). Nothing when a
// part later phases need is missing or wrong.
std::optional<Model> DecodeModelDocument(ByteView bytes, const Limits& limits,
                                         DiagnosticSink& sink);

// Compares a .tmodel's arch with a .tarch, field by field (TNS-5).
void CheckArchitecturesMatch(const Model& model, const Architecture& tarch,
                             const std::string& tarch_path, DiagnosticSink& sink);

}  // namespace accelcheck::tensil
