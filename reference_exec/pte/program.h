// A .pte made ready to run: validated by the pte validator (the executor
// never runs a file that fails it), with the bytes every tensor's initial
// data comes from located once (docs/formats/pte.md §2.5).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte::exec {

namespace fb = executorch_flatbuffer;

struct LoadOptions {
  Limits limits;
  Deadline deadline{0};
  // Named-data files (.ptd); without one, <stem>.ptd beside the program is used.
  std::vector<std::string> data;
  // Runs a program whose only errors are memory-plan rules
  // (pte.memory.live_overlap, pte.dataflow.read_before_write): what an
  // aliasing oracle runs on. Every other error still refuses the run.
  bool allow_memory_plan_errors = false;
};

// The named data EXTERNAL tensors resolve to: a key's bytes, inside a .ptd
// of either FT01 layout (§1.4) or the program's own named_data segments.
class NamedData {
 public:
  void Add(std::string key, ByteView bytes) { entries_.emplace(std::move(key), bytes); }
  std::optional<ByteView> Find(std::string_view key) const;
  size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, ByteView, std::less<>> entries_;
};

class LoadedProgram {
 public:
  LoadedProgram(InputBuffer file, std::vector<InputBuffer> data_files, uint64_t segment_base);
  LoadedProgram(LoadedProgram&&) = default;
  LoadedProgram& operator=(LoadedProgram&&) = default;

  const fb::Program& program() const { return *fb::GetProgram(file_.data()); }
  ByteView file() const { return file_.bytes(); }
  const NamedData& named_data() const { return named_; }

  // The plan named `name`, or the first plan when `name` is empty.
  const fb::ExecutionPlan* FindPlan(std::string_view name) const;

  // The bytes of constant `index` of the constant segment or of the
  // deprecated constant_buffer (what the validator checked: PTE-20 to PTE-23).
  std::optional<ByteView> Constant(uint32_t index) const;
  // The initial value of mutable tensor `index` (mutable_data_segments[0]).
  std::optional<ByteView> MutableInitial(uint32_t index) const;

 private:
  friend std::optional<LoadedProgram> LoadProgram(const std::string&, const LoadOptions&,
                                                  DiagnosticSink&);
  std::optional<ByteView> SegmentBytes(uint32_t segment, uint64_t offset) const;

  InputBuffer file_;
  std::vector<InputBuffer> data_files_;
  uint64_t segment_base_;
  NamedData named_;
};

// Reads and validates `path` with its named data. Nothing when the file
// cannot be read or does not validate (the reasons are in `sink`).
std::optional<LoadedProgram> LoadProgram(const std::string& path, const LoadOptions& options,
                                         DiagnosticSink& sink);
// The same for bytes held in memory, with the named-data files' bytes.
std::optional<LoadedProgram> LoadProgramBytes(std::vector<uint8_t> program,
                                              std::vector<std::vector<uint8_t>> data,
                                              const LoadOptions& options, DiagnosticSink& sink);

}  // namespace accelcheck::pte::exec
