// The project's valid Edge TPU examples, built in C++ from the model: each
// small (tens of KB, the package's 4096-byte pages dominating), laid out as
// the compiler lays out its output, and meant to validate without a finding
// even under --strict. The conformance suite writes them as its valid cases
// and mutates them into its negative cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conformance/edgetpu/model.h"

namespace accelcheck::edgetpu {

struct NamedBase {
  std::string name;
  model::File file;
};

// In a fixed order:
//   standalone      one STAND_ALONE executable with parameters, like the
//                   compiler's output for a single convolution;
//   cached_1d       a PARAMETER_CACHING + EXECUTION_ONLY pair with a 1-D
//                   output, the PC executable patching parameters and scratch;
//   tiled_layout    a pair whose FIXED_POINT16 output uses the schema's
//                   2x2-tile layout of a 4x5x32 tensor, with int8 layers and a
//                   CPU operator after the Edge TPU one;
//   scratch_fences  a pair whose EO executable uses scratch memory, two
//                   bitstream chunks and fence hints;
//   lstm_variable   a pair whose EO executable holds parameters too and
//                   writes a state back through an `<input>_variable_output`;
//   bare_package    a pair as a bare DWN1 package file.
std::vector<NamedBase> ExampleBases();

// Bytes per element of a DataType (docs/formats/edgetpu.md §1.5); nothing for
// a value the schema does not name.
std::optional<int> ElementSize(int16_t data_type);

// The TensorFlow Lite type the runtime requires for a layer's DataType
// (EDG-12); nothing for BFLOAT and unnamed values.
std::optional<int8_t> TfliteType(int16_t data_type);

// The custom options the current compiler writes around a package
// (docs/formats/edgetpu.md §2.3): "1" = 0, "4" = the package as a STRING,
// "5" = -1, "6" = [18], "7" = [].
model::FlexMap CompilerOptions(model::Package package);

// A one-subgraph model whose single operator is the Edge TPU operator
// carrying `options`, with a tensor for every input and output layer of the
// package's main executable (the STAND_ALONE one, or EXECUTION_ONLY of a
// pair): same names, the type EDG-12 requires, the shape [1, y, x, z] without
// its leading 1-sized dimensions, and the layer's quantization (EDG-16). An
// output layer `<X>_variable_output` gets no tensor: it writes back into input
// X, which is variable (EDG-15).
model::TfliteModel WrapPackage(const model::Package& package, model::FlexMap options);

// The executable a runtime runs for the package (EDG-30/31): nothing when
// the package has none in model form.
const model::Executable* MainExecutable(const model::Package& package);

// Valid packages of any shape, built with the bases' conventions, for the
// property tests (random shapes) and the benchmarks (large ones). One input
// or output layer of the main executable:
struct LayerSpec {
  std::string name;  // unique among the inputs, and among the outputs
  int32_t y = 1, x = 1, z = 1;
  int16_t data_type = model::kFixedPoint8;  // one with a TFLite type (§1.5)
  int32_t zero_point = 0;                   // the device's (offset binary, EDG-16)
  float scale = 1;
  int32_t pieces = 1;  // DMA descriptors that move it, one after the other
  // Inputs: size_bytes rounded up to 8 as the compiler does (EDG-75), and
  // the bytes each descriptor reads again of the one before (a halo, EDG-68).
  bool round_size = false;
  int32_t halo = 0;
  // Outputs: the tiles along y and along x (§6.3; fewer when the layer is
  // too small for the runtime's stride to come from the first tile), z
  // padded to a multiple of 4 bytes per position as in real files, and a
  // Layer.shape as newer compilers write.
  int32_t y_tiles = 1, x_tiles = 1;
  bool pad_z = false;
  bool with_shape = true;
};

struct PackageSpec {
  std::vector<LayerSpec> inputs;
  // Regular outputs first; an output named `<input>_variable_output` writes
  // that input back (EDG-15).
  std::vector<LayerSpec> outputs;
  bool cached = true;  // a PARAMETER_CACHING + EXECUTION_ONLY pair, else STAND_ALONE
  // The parameters streamed by the PC executable (a pair) or the SA one, and
  // those an EO executable keeps (EDG-89); multiples of 64 (EDG-55).
  uint32_t parameter_bytes = 0;
  uint32_t main_parameter_bytes = 0;
  int32_t parameter_pieces = 1;  // descriptors streaming the main executable's parameters
  int32_t scratch_bytes = 0;     // the main executable writes it out and reads it back
  int32_t chunks = 1;            // the main executable's bitstream chunks
  int32_t patch_pairs = 1;       // LOWER + UPPER patches per address (EDG-51)
  bool pc_scratch = false;       // the PC executable patches scratch (2019 compilers)
  uint64_t token = 1;            // not 0 for a pair (EDG-33)
  int32_t min_runtime_version = 14;
  uint32_t seed = 1;  // filler of bitstreams and parameters
};

// The package `spec` describes, which validates without a finding under
// --strict, bare or wrapped with WrapPackage.
model::Package PackageFromSpec(const PackageSpec& spec);

}  // namespace accelcheck::edgetpu
