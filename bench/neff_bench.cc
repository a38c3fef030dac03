// Measures NEFF validation against its floor, inflating the payload and
// hashing it once (what any reader of the file must do, docs/formats/neff.md
// §1.3, §1.4), and its peak memory in a fresh process against the inflated
// archive plus the file. Run through bench/run.sh.
//
//   neff_bench generate [--descriptors N] [--constant-mb C] -o FILE
//                                           a NEFF of large engine JSONs and a large constant
//   neff_bench compare FILE [--repeat R]    floor vs full validation, best of R, and peak RSS
//   neff_bench corpus DIR [--repeat R]      validation time of each .neff in DIR, then
//                                           compare on the largest
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "validators/core/digest.h"
#include "validators/core/format.h"
#include "validators/core/gzip.h"
#include "validators/core/text.h"
#include "validators/neff/container.h"
#include "validators/neff/neff_format.h"

namespace {

using namespace accelcheck;
namespace nc = neff::conformance;

// Tensors of 1024 x 1024 float32; a descriptor moves 128 rows (one per
// partition) of 16 elements, so each tensor holds 512 such regions.
constexpr uint64_t kTensors = 4;
constexpr uint64_t kSide = 1024;
constexpr uint64_t kRows = 128, kElements = 16;
constexpr uint64_t kRegion = kRows * kElements * 4;
constexpr uint64_t kRegions = kSide * kSide * 4 / kRegion;
constexpr uint64_t kPerBlock = 4;  // at most, so that a block's writes stay disjoint

// Weights that compress as real ones do, hardly at all.
std::vector<uint8_t> Noise(uint64_t size) {
  std::vector<uint8_t> bytes(size);
  uint64_t x = 0x9e3779b97f4a7c15;
  for (uint8_t& b : bytes) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b = static_cast<uint8_t>(x >> 24);
  }
  return bytes;
}

// A Trn1 graph that streams four inputs and a float16 weight constant
// through the state buffer to four outputs and a spill, in `descriptors`
// descriptors: SP loads (every seventh block casts weights), Pool stores,
// Activation spills, one to four descriptors a block, each of a block
// writing its own bytes (NEFF-51) inside its variable (NEFF-39).
nc::Spec LargeSpec(uint64_t descriptors, uint64_t constant_bytes) {
  nc::Spec spec = nc::Trn1Spec();
  spec.name = "large.neff";
  for (uint64_t i = 0; i < kTensors; ++i) {
    spec.inputs.push_back({Str("input_", i), "float32", {kSide, kSide}});
    spec.outputs.push_back({Str("output_", i), "float32", {kSide, kSide}});
  }
  const uint64_t weight_elements = std::max<uint64_t>(constant_bytes / 2, kRows * kElements);
  spec.constants.push_back({"weights", "float16", {weight_elements}, Noise(weight_elements * 2)});
  const uint64_t weight_regions = weight_elements / (kRows * kElements);
  spec.virtuals.push_back({"spill", kSide * kSide * 4, 0});
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"},
                 {"qPoolIO0", nc::Engine::kPool, "in"},
                 {"qActSpillReload0", nc::Engine::kAct, "data"}};
  for (uint64_t b = 0, written = 0; written < descriptors; ++b) {
    const uint64_t count = std::min(1 + b % kPerBlock, descriptors - written);
    const uint64_t tensor = b / 3 % kTensors;
    nc::Block block{b % 3 == 0 ? "qSPIO0" : b % 3 == 1 ? "qPoolIO0" : "qActSpillReload0", {}};
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t region = (b * kPerBlock + k) % kRegions;
      const uint64_t sb = nc::SbAddress(0, ((b % 512) * kPerBlock + k) * kElements * 4);
      if (b % 3 == 0 && b % 7 == 0) {
        block.desc.push_back(nc::MoveRows("weights", (region % weight_regions) * kRegion / 2,
                                          "float16", "SB", sb, "float32", kRows, kElements));
      } else if (b % 3 == 0) {
        block.desc.push_back(nc::MoveRows(Str("input_", tensor), region * kRegion, "float32", "SB",
                                          sb, "float32", kRows, kElements));
      } else {
        block.desc.push_back(nc::MoveRows("SB", sb, "float32",
                                          b % 3 == 1 ? Str("output_", tensor) : "spill",
                                          region * kRegion, "float32", kRows, kElements));
      }
    }
    written += count;
    spec.blocks.push_back(std::move(block));
  }
  return spec;
}

int Generate(uint64_t descriptors, uint64_t constant_bytes, const std::string& out) {
  const nc::Spec spec = LargeSpec(descriptors, constant_bytes);
  const nc::Neff neff = nc::Build(spec);
  uint64_t json = 0, other = 0;
  for (const nc::Member& m : neff.members)
    (m.name.ends_with(".json") ? json : other) += nc::Bytes(m).size();
  const std::vector<uint8_t> bytes = nc::Write(neff);
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) return 3;
  std::fclose(f);
  std::printf(
      "wrote %s: %zu bytes; %zu blocks, %llu descriptors; members %.1f MB of JSON, %.1f MB "
      "of programs, tables and constants\n",
      out.c_str(), bytes.size(), spec.blocks.size(), static_cast<unsigned long long>(descriptors),
      json / 1e6, other / 1e6);
  return 0;
}

// The peak RSS of a fresh process (this program, `rss FILE`) that reads
// and validates `path` once, in KiB; nothing when it cannot run.
std::optional<long> PeakRssKib(const std::string& path) {
  const pid_t pid = fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    execl("/proc/self/exe", "neff_bench", "rss", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  return usage.ru_maxrss;
}

int Rss(const std::string& path) {
  InputBuffer input;
  if (!bench::ReadInput("neff_bench", path, &input)) return 3;
  bench::ValidateOnce(neff::NeffFormat(), input, path);
  return 0;
}

int Compare(const std::string& path, int repeat) {
  InputBuffer input;
  if (!bench::ReadInput("neff_bench", path, &input)) return 3;
  const ByteView file = input.bytes();
  if (!neff::LooksLikeNeff(file)) {
    std::fprintf(stderr, "neff_bench: %s is not a NEFF\n", path.c_str());
    return 3;
  }
  const ByteView payload = file.subspan(neff::kHeaderBytes, neff::ReadHeader(file).data_size);
  // The floor: the payload inflated (a plain tar is read in place) and its
  // MD5 computed once.
  uint64_t inflated = payload.size();
  const double inflate = bench::BestSeconds(repeat, [&] {
    if (!gzip::HasMagic(payload)) return;
    gzip::Error error;
    const std::optional<gzip::Member> member = gzip::Inflate(payload, {}, &error);
    inflated = member ? member->data.size() : 0;
  });
  const double md5 = bench::BestSeconds(repeat, [&] { (void)digest::ComputeMd5(payload); });
  const double floor = inflate + md5;
  uint64_t errors = 0;
  const double validate = bench::BestSeconds(
      repeat, [&] { errors = bench::ValidateOnce(neff::NeffFormat(), input, path); });
  std::printf("file            %s (%zu bytes, %llu inflated)\n", path.c_str(), file.size(),
              static_cast<unsigned long long>(inflated));
  std::printf("floor           %.3f ms (inflate %.3f ms, MD5 %.3f ms)\n", floor * 1e3,
              inflate * 1e3, md5 * 1e3);
  std::printf("accelcheck      %.3f ms (%llu errors)\n", validate * 1e3,
              static_cast<unsigned long long>(errors));
  std::printf("ratio           %.2fx the floor\n", validate / floor);
  std::printf("throughput      %.1f MB/s of inflated archive\n", inflated / validate / 1e6);
  const double bound = static_cast<double>(inflated + file.size()) / 1024;
  if (const std::optional<long> rss = PeakRssKib(path)) {
    std::printf("peak RSS        %ld KiB, %.2fx inflated + file (%.0f KiB)\n", *rss,
                static_cast<double>(*rss) / bound, bound);
  } else {
    std::printf("peak RSS        not measured (the child process failed)\n");
  }
  return 0;
}

// Every real file's validation time, then the comparison on the largest;
// nothing to do without real files.
int Corpus(const std::string& dir, int repeat) {
  const std::vector<std::filesystem::path> files = bench::CorpusFiles(dir, {".neff"});
  if (files.empty()) {
    std::printf("no .neff files in %s: skipped\n", dir.c_str());
    return 0;
  }
  if (const int status =
          bench::ValidateCorpus("neff_bench", neff::NeffFormat(), dir, {".neff"}, repeat)) {
    return status;
  }
  const auto largest =
      std::max_element(files.begin(), files.end(), [](const auto& a, const auto& b) {
        return std::filesystem::file_size(a) < std::filesystem::file_size(b);
      });
  return Compare(largest->string(), repeat);
}

int Usage() {
  std::fputs(
      "usage: neff_bench generate [--descriptors N] [--constant-mb C] -o FILE\n"
      "     | compare FILE [--repeat R] | corpus DIR [--repeat R]\n",
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
  const auto number = [&](const std::string& name, const std::string& fallback) {
    return std::strtoull(flag(name, fallback).c_str(), nullptr, 10);
  };
  const int repeat = std::atoi(flag("--repeat", "5").c_str());
  if (args[0] == "generate") {
    return Generate(number("--descriptors", "400000"), number("--constant-mb", "16") << 20,
                    flag("-o", "large.neff"));
  }
  if (args[0] == "compare" && args.size() >= 2) return Compare(args[1], repeat);
  if (args[0] == "corpus" && args.size() >= 2) return Corpus(args[1], repeat);
  if (args[0] == "rss" && args.size() >= 2) return Rss(args[1]);
  return Usage();
}
