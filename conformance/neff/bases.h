// The project's valid NEFF examples, built from Specs: each a few KB, laid
// out as the compiler lays out its output (docs/formats/neff.md §5), and
// meant to validate without a finding under --strict. The conformance suite
// writes them as its valid cases and mutates them into its negative cases.
#pragma once

#include <string>
#include <vector>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"

namespace accelcheck::neff::conformance {

struct NamedBase {
  std::string name;
  Spec spec;
  Neff neff;  // Build(spec)
};

// A Trn1 vector add like T1-stream: two float32 inputs loaded by SP into the
// state buffer in two halves each, Pool storing two blocks to the output
// (§5.2). POSIX ustar, MD5 with reversed words, gzip.
Spec StreamSpec();

// A Trn2 file of two subgraphs (LNC 2, `cayman`, feature bits 0xC00, the
// evtaccel reservation, neff_feature_vnc) as GNU tar with `sgNN/` directory
// entries and the plain hash order. Its first subgraph loads an input, casts
// an int8 identity constant (an .npy `file` variable) to float16, spills to a
// virtual variable from Pool and reads it back on SP, transposes the spill
// into the state buffer, stores from Activation (which uses the set
// exp_and_others) into the spill, and casts a float32 result to the float16
// output; DVE has its four Trn2 tables.
Spec Lnc2Spec();

// A Trn1 copy through the state buffer in an uncompressed payload
// (`neuron-packager optimize`, §1.4), pkg_version 2; Pool stores with one
// block of two descriptors.
Spec PlainSpec();

// The write-up's example as docs/formats/neff.md §6 sets it against real
// files, each difference accepted: engine members named by their keys
// (sp.json, pool.json), kelf-a.json, GNU tar with directory entries, the
// plain hash order, descriptors without num_tiling_dimensions. A Trn1 copy
// of float16 rows through partitions 4 to 11.
Spec WriteupSpec();

// T1-stream as neuronx-cc 2.0 wrote it (§1.5): a pax extended header with
// the member's times before every member, the packaging time in the
// members' mtime and no owner names, and the plain hash order.
Spec PaxSpec();

// In a fixed order: "stream", "lnc2", "plain", "writeup", "pax".
std::vector<NamedBase> Bases();

}  // namespace accelcheck::neff::conformance
