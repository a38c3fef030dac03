// The .pte builder: a compact description of a program that always yields a
// valid file. It lays out what a writer must get right by hand (planned
// memory offsets and non_const_buffer_sizes, the constant segment with its
// reserved offset 0, boxed IntList elements, the KernelCall return argument,
// segment order and alignment), so that a recipe only says what the program
// computes. Misuse (an index that names nothing, two constant stores) throws
// std::invalid_argument: a recipe either builds a valid file or fails.
//
// A JSON form of the same description is read by `accelcheck generate pte
// --recipe R.json`; conformance/pte/recipes/*.json are examples:
//   {"plans": [{"name": "forward",
//               "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2],
//                           "memory": "planned|none|constant|mutable|external", "place":
//                           "segment|inline", "key": "weight" (external only), "dynamism":
//                           "static|dynamic_bound|dynamic_unbound", "data": [1, 2]}},
//                          {"name": "a", "int": 1}, {"double": 0.5}, {"bool": true}, {"string":
//                          "s"},
//                          {"int_list": [1, 2]}, {"double_list": [0.5]}, {"bool_list": [true]},
//                          {"tensor_list": ["x"]}, {"optional_tensor_list": ["x", null]}, {"null":
//                          null}],
//               "inputs": ["x"], "outputs": ["y"],
//               "delegates": [{"name": "d", "backend": "XnnpackBackend", "place": "inline|segment",
//                              "payload": "0a0b..." | {"size": 64, "fill": 7},
//                              "compile_specs": {"key": "value"}}],
//               "instructions": [{"kernel": "aten::add.out", "args": ["x", "y", "a", "z"]},
//                                {"delegate": "d", "args": ["x", "y"]}, {"move": ["x", "y"]},
//                                {"jump_false": "cond", "to": 3}, {"free": "t"},
//                                {"kernel": "executorch_prim::add.Scalar", "args": ["a", "b", "c"],
//                                 "ret": null} (no return value: a scalar op)]}],
//    "named_data": [{"key": "weights", "payload": {"size": 32}}]}
// Values and delegates are referred to by name; operators are declared by
// their first KernelCall ("name.overload", split at the last dot). An
// "external" tensor's data goes to the companion .ptd under its "key".
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/pte/model.h"

namespace accelcheck::pte {

enum class ConstantPlace { kSegment, kInlineBuffer };
enum class DelegatePlace { kInline, kSegment };

// Bytes per element of a ScalarType (docs/formats/pte.md §2.1), or nothing when the
// schema does not declare the type.
std::optional<uint64_t> ScalarTypeSize(int8_t scalar_type);

class ProgramRecipe;

// One execution plan. Every Add* returns the index of the new value (or
// operator, delegate, instruction) in the plan.
class PlanRecipe {
 public:
  using Sizes = std::vector<int32_t>;
  using Bytes = std::vector<uint8_t>;

  // A tensor in planned memory (buffer 1), 16-byte aligned after the previous
  // one; non_const_buffer_sizes grows to hold it.
  int AddPlannedTensor(int8_t dtype, Sizes sizes, int8_t dynamism = 0);
  // A tensor whose data comes at run time (delegate I/O, unplanned inputs).
  int AddUnplannedTensor(int8_t dtype, Sizes sizes, int8_t dynamism = 0);
  // A constant; `bytes` is zero-padded to the tensor's size. All constants of
  // a program share one store (the constant segment or constant_buffer).
  int AddConstantTensor(int8_t dtype, Sizes sizes, Bytes bytes,
                        ConstantPlace where = ConstantPlace::kSegment);
  // A planned tensor with an initial value in mutable_data_segments[0].
  int AddMutableTensor(int8_t dtype, Sizes sizes, Bytes initial);
  // A constant whose data lives in the companion .ptd under `key`
  // (docs/formats/pte.md §2.5, EXTERNAL): the program keeps only its name and
  // layout; `bytes` (zero-padded) and the same layout go to the .ptd.
  int AddExternalTensor(int8_t dtype, Sizes sizes, std::string key, Bytes bytes);

  int AddNull();
  int AddInt(int64_t value);
  int AddBool(bool value);
  int AddDouble(double value);
  int AddString(std::string value);
  // Boxes every element as its own Int value first (docs/formats/pte.md §2.5).
  int AddIntList(const std::vector<int64_t>& items);
  int AddDoubleList(std::vector<double> items);
  int AddBoolList(const std::vector<bool>& items);
  int AddTensorList(std::vector<int32_t> tensors);
  // -1 stands for None.
  int AddOptionalTensorList(std::vector<int32_t> tensors);

  void AddInput(int value);
  void AddOutput(int value);

  int AddOperator(std::string name, std::string overload);
  int AddDelegate(std::string backend_id, Bytes processed, DelegatePlace where,
                  std::vector<std::pair<std::string, std::string>> compile_specs = {});

  // The calling convention of docs/formats/pte.md §7: every schema argument in order
  // (out last), then the return value, which aliases the out tensor (`ret`
  // defaults to the last argument).
  int KernelCall(int op, std::vector<int32_t> args, std::optional<int32_t> ret = std::nullopt);
  // The scalar ops' convention (executorch_prim::*, aten::sym_size.int,
  // aten::sym_numel; docs/formats/pte.md §5): operands, then the value
  // written, and no return value.
  int PrimCall(int op, std::vector<int32_t> args);
  int DelegateCall(int delegate, std::vector<int32_t> args);
  int Move(int from, int to);
  // `destination` may equal instruction_count() at the end ("jump to end").
  int JumpFalse(int cond, int destination);
  int Free(int value);

  int value_count() const;
  int instruction_count() const;
  const model::ExecutionPlan& plan() const { return plan_; }

 private:
  friend class ProgramRecipe;
  PlanRecipe(ProgramRecipe* program, std::string name);

  int AddValue(model::EValue value);
  int AddInstruction(model::Instruction instruction);
  void CheckValue(int value, const char* what) const;
  uint64_t TensorBytes(int8_t dtype, const Sizes& sizes) const;

  ProgramRecipe* program_;
  model::ExecutionPlan plan_;
  uint64_t planned_end_ = 0;
  // Per delegate: the program-level blob it refers to.
  std::vector<size_t> delegate_blobs_;
};

class ProgramRecipe {
 public:
  ProgramRecipe() = default;
  ProgramRecipe(const ProgramRecipe&) = delete;
  ProgramRecipe& operator=(const ProgramRecipe&) = delete;

  PlanRecipe& AddPlan(std::string name);
  // A blob in its own segment, named by `key` in Program.named_data.
  void AddNamedData(std::string key, std::vector<uint8_t> bytes);

  // The file: segment 0 is the constant segment (empty when the constants
  // are inline or absent), then the mutable segment, the SEGMENT delegate
  // payloads and the named data, laid out like the writer.
  model::File Build() const;
  // The companion .ptd with the data of every EXTERNAL tensor, one segment
  // and one named_data entry each, or nothing when there is none.
  std::optional<model::PtdFile> BuildPtd() const;

 private:
  friend class PlanRecipe;
  struct Blob {
    std::vector<uint8_t> bytes;
    DelegatePlace place;
  };
  struct External {
    std::string key;
    model::TensorLayout layout;
    std::vector<uint8_t> bytes;
  };
  void AddExternal(External external);
  uint32_t AddConstant(std::vector<uint8_t> bytes, ConstantPlace where);
  uint32_t AddMutable(std::vector<uint8_t> bytes);

  std::deque<PlanRecipe> plans_;
  std::optional<ConstantPlace> constant_place_;
  std::vector<std::vector<uint8_t>> constants_;  // index i + 1 in offsets / constant_buffer
  std::vector<std::vector<uint8_t>> mutables_;   // index i + 1 in mutable offsets
  std::vector<Blob> delegate_blobs_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> named_data_;
  std::vector<External> externals_;
};

// A recipe's files: the program, and its companion .ptd when it has
// EXTERNAL tensors.
struct RecipeFiles {
  model::File program;
  std::optional<model::PtdFile> data;
  // Per plan, the index of each value the recipe names.
  std::vector<std::map<std::string, int>> value_names;
};

// Builds the files a JSON recipe describes (the format above).
// Throws std::invalid_argument (with what is wrong and where) on a bad recipe.
RecipeFiles BuildRecipeFiles(const nlohmann::json& recipe);
// The program alone (BuildRecipeFiles(recipe).program).
model::File BuildRecipe(const nlohmann::json& recipe);

}  // namespace accelcheck::pte
