// Gemini scheduler IR measurements: the JSON layers side by side on one
// file, one layer per process so that each peak RSS is its own.
//   gemini_bench MODE FILE     MODE: tokenize | decode | validate | nlohmann-sax | simdjson
//   gemini_bench executors IR FRONTEND   simulator and functional executor times
// Prints: mode, MB, seconds (best of --repeat), MB/s, peak RSS and its ratio
// to the file size.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#ifdef ACCELCHECK_BENCH_SIMDJSON
#include <simdjson.h>
#endif

#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "validators/core/json_reader.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"

namespace {

using namespace accelcheck;

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double Seconds(const std::function<void()>& run, int repeat) {
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// The no-op SAX handler: what nlohmann costs before any table is built.
struct NullSax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

#ifdef ACCELCHECK_BENCH_SIMDJSON
// Visits every value with On Demand (no DOM), counting scalars.
uint64_t Walk(simdjson::ondemand::value value) {
  uint64_t count = 0;
  switch (value.type()) {
    case simdjson::ondemand::json_type::object:
      for (auto field : value.get_object()) count += Walk(field.value());
      return count;
    case simdjson::ondemand::json_type::array:
      for (auto element : value.get_array()) count += Walk(element.value());
      return count;
    default:
      return 1;
  }
}
#endif

int Layer(const std::string& mode, const std::string& path, int repeat) {
  std::string error;
  auto input = ReadFileLimited(path, 1ull << 34, &error);
  if (!input) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 3;
  }
  const ByteView bytes = input->bytes();
  bool ok = true;
  std::function<void()> run;
  if (mode == "tokenize") {
    run = [&] {
      JsonReader reader(bytes, 64, &*input);
      reader.Skip();
      ok = reader.Finish();
    };
  } else if (mode == "decode") {
    run = [&] {
      gemini::Ir ir;
      DiagnosticSink sink(Profile{}, path);
      ok = gemini::DecodeIr(bytes, Limits{}, sink, &ir, &*input);
    };
  } else if (mode == "validate") {
    run = [&] {
      DiagnosticSink sink(Profile{}, path);
      ok =
          gemini::DecodeAndValidate(bytes, ValidateContext{}, nullptr, sink, &*input).has_value() &&
          sink.error_count() == 0;
    };
  } else if (mode == "nlohmann-sax") {
    run = [&] {
      NullSax sax;
      ok = nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &sax);
    };
#ifdef ACCELCHECK_BENCH_SIMDJSON
  } else if (mode == "simdjson") {
    // On Demand needs SIMDJSON_PADDING readable bytes after the text: one copy.
    const simdjson::padded_string padded(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    simdjson::ondemand::parser parser;
    run = [&] {
      auto doc = parser.iterate(padded);
      ok = Walk(doc.get_value()) > 0;
    };
    const double s = Seconds(run, repeat);
    const double mb = static_cast<double>(bytes.size()) / 1e6;
    std::printf("%-13s %9.1f MB %8.3f s %8.1f MB/s  peak %8.1f MB (%.2fx)%s\n", mode.c_str(), mb, s,
                mb / s, PeakRssMb(), PeakRssMb() * 1.048576 / mb, ok ? "" : "  FAILED");
    return ok ? 0 : 1;
#endif
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  const double s = Seconds(run, repeat);
  const double mb = static_cast<double>(bytes.size()) / 1e6;
  std::printf("%-13s %9.1f MB %8.3f s %8.1f MB/s  peak %8.1f MB (%.2fx)%s\n", mode.c_str(), mb, s,
              mb / s, PeakRssMb(), PeakRssMb() * 1.048576 / mb, ok ? "" : "  FAILED");
  return ok ? 0 : 1;
}

int Executors(const std::string& ir_path, const std::string& frontend_path, int repeat) {
  DiagnosticSink sink(Profile{}, ir_path);
  const auto loaded = gemini::LoadValidIr(ir_path, frontend_path, Limits{}, sink);
  if (!loaded) {
    std::fprintf(stderr, "%s does not validate\n", ir_path.c_str());
    return 1;
  }
  const std::string name = ir_path.substr(ir_path.find_last_of('/') + 1);
  const double sim =
      Seconds([&] { (void)gemini::Simulate(loaded->ir, gemini::SimulateOptions{}); }, repeat);
  // The functional executor once per mode: values only, then tensors at their L2 addresses.
  bool equal = true;
  double run[2] = {0, 0};
  for (const bool l2 : {false, true}) {
    gemini::ExecuteOptions options;
    options.l2_addressed = l2;
    run[l2] = Seconds(
        [&] {
          equal = !gemini::Execute(loaded->ir, *loaded->frontend, options).first_mismatch && equal;
        },
        1);
  }
  std::printf(
      "%-58s simulate %8.3f ms  run %8.2f s  run --l2-addressed %8.2f s  tiled==untiled %s\n",
      name.c_str(), sim * 1e3, run[0], run[1], equal ? "yes" : "NO");
  return equal ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "executors") == 0) return Executors(argv[2], argv[3], 5);
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: gemini_bench tokenize|decode|validate|nlohmann-sax|simdjson FILE [REPEAT]\n"
        "       gemini_bench executors IR.json FRONTEND.json\n");
    return 2;
  }
  return Layer(argv[1], argv[2], argc > 3 ? std::atoi(argv[3]) : 1);
}
