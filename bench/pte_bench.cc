// Measures .pte validation against the bare flatbuffers Verifier on the same
// bytes, and on real files. Run through bench/run.sh, which also records peak
// memory and fuzzing throughput.
//
//   pte_bench generate --values N -o FILE   a table-dense program of >= N values
//   pte_bench compare FILE [--repeat R]     Verifier vs full validation, best of R
//   pte_bench corpus DIR [--repeat R]       validation time of each file in DIR
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "conformance/pte/model.h"
#include "conformance/pte/serialize.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/schema/program_generated.h"

namespace {

using namespace accelcheck;
namespace model = pte::model;

// A program shaped like a large exported network: many add kernels, each with
// two planned inputs, an Int alpha and a planned output (4 values per call),
// in the real calling convention (args, then the output again as the return).
std::vector<uint8_t> TableDenseProgram(size_t values) {
  model::File file;
  file.program.constant_segment.reset();  // no constants, and so no segment to hold them
  model::ExecutionPlan plan;
  plan.operators->push_back({std::string("aten::add"), std::string("out")});
  model::Chain chain;
  const size_t calls = (values + 3) / 4;
  constexpr int32_t kElements = 16;
  constexpr uint32_t kBytes = kElements * 4;
  uint64_t offset = 0;
  auto planned = [&]() {
    model::Tensor t;
    t.sizes = model::Vec<int32_t>{4, 4};
    t.dim_order = model::Vec<uint8_t>{0, 1};
    t.allocation =
        model::Allocation{1, static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
    offset += kBytes;
    return model::EValue::Of(t);
  };
  plan.values->reserve(calls * 4);
  for (size_t c = 0; c < calls; ++c) {
    const auto base = static_cast<int32_t>(plan.values->size());
    plan.values->push_back(planned());
    plan.values->push_back(planned());
    plan.values->push_back(model::EValue::Of(model::Int{1}));
    plan.values->push_back(planned());
    chain.instructions->push_back(model::Instruction::Of(
        model::KernelCall{0, model::Vec<int32_t>{base, base + 1, base + 2, base + 3, base + 3}}));
    plan.inputs->push_back(base);
    plan.inputs->push_back(base + 1);
    plan.outputs->push_back(base + 3);
  }
  plan.non_const_buffer_sizes = model::Vec<int64_t>{0, static_cast<int64_t>(offset)};
  plan.chains->push_back(std::move(chain));
  file.program.execution_plan->push_back(std::move(plan));
  return pte::Serialize(file);
}

int Generate(size_t values, const std::string& out) {
  const std::vector<uint8_t> bytes = TableDenseProgram(values);
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) return 3;
  std::fclose(f);
  std::printf("wrote %s: %zu bytes, >= %zu values\n", out.c_str(), bytes.size(), values);
  return 0;
}

int Compare(const std::string& path, int repeat) {
  InputBuffer input;
  if (!bench::ReadInput("pte_bench", path, &input)) return 3;
  bool verified = false;
  const double verifier = bench::BestSeconds(repeat, [&] {
    flatbuffers::Verifier::Options options;
    options.max_tables = Limits{}.max_tables;
    flatbuffers::Verifier v(input.data(), input.size(), options);
    verified = executorch_flatbuffer::VerifyProgramBuffer(v);
  });
  uint64_t errors = 0;
  const double validate = bench::BestSeconds(
      repeat, [&] { errors = bench::ValidateOnce(pte::PteFormat(), input, path); });
  std::printf("file            %s (%zu bytes)\n", path.c_str(), input.size());
  std::printf("verifier        %.3f ms (%s)\n", verifier * 1e3, verified ? "ok" : "fails");
  std::printf("accelcheck      %.3f ms (%llu errors)\n", validate * 1e3,
              static_cast<unsigned long long>(errors));
  std::printf("ratio           %.2fx the bare verifier\n", validate / verifier);
  std::printf("throughput      %.1f MB/s\n", input.size() / validate / 1e6);
  return 0;
}

int Corpus(const std::string& dir, int repeat) {
  return bench::ValidateCorpus("pte_bench", pte::PteFormat(), dir, {".pte", ".ptd"}, repeat);
}

int Usage() {
  std::fputs(
      "usage: pte_bench generate --values N -o FILE | compare FILE [--repeat R] | "
      "corpus DIR [--repeat R]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return Usage();
  const auto flag = [&](const std::string& name, const std::string& fallback) {
    return bench::FlagValue(args, name, fallback);
  };
  const int repeat = std::atoi(flag("--repeat", "5").c_str());
  if (args[0] == "generate") {
    return Generate(std::strtoull(flag("--values", "1000000").c_str(), nullptr, 10),
                    flag("-o", "big.pte"));
  }
  if (args[0] == "compare" && args.size() >= 2) return Compare(args[1], repeat);
  if (args[0] == "corpus" && args.size() >= 2) return Corpus(args[1], repeat);
  return Usage();
}
