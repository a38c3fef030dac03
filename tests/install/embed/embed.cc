// An out-of-tree program that embeds accelcheck through its installed package
// (tests/install/CMakeLists.txt): it validates a Tensil architecture it holds
// in memory, then the same with a broken field, and exits 0 only when the
// first conforms and the second reports the rule it breaks.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <accelcheck/accelcheck.h>

namespace {

std::vector<uint8_t> Architecture(int array_size) {
  const std::string text =
      "{\"data_type\": \"FP16BP8\", \"array_size\": " + std::to_string(array_size) +
      ", \"dram0_depth\": 1024, \"dram1_depth\": 1024, \"local_depth\": 256,"
      " \"accumulator_depth\": 256, \"simd_registers_depth\": 1,"
      " \"stride0_depth\": 8, \"stride1_depth\": 8,"
      " \"number_of_threads\": 1, \"thread_queue_depth\": 8}";
  return {text.begin(), text.end()};
}

void Print(const char* name, const accelcheck::api::Result& result) {
  std::cout << name << ": format " << result.format << ", outcome "
            << static_cast<int>(result.outcome) << "\n";
  for (const accelcheck::api::Diagnostic& d : result.diagnostics) {
    std::cout << "  " << accelcheck::api::SeverityName(d.severity) << "[" << d.rule << "] "
              << d.path << ": " << d.message << "\n";
  }
}

bool Reports(const accelcheck::api::Result& result, const std::string& rule) {
  for (const accelcheck::api::Diagnostic& d : result.diagnostics) {
    if (d.rule == rule && d.severity == accelcheck::api::Severity::kError) return true;
  }
  return false;
}

}  // namespace

int main() {
  using accelcheck::api::Outcome;
  std::cout << "accelcheck " << accelcheck::api::Version() << "\n";
  const accelcheck::api::Result valid = accelcheck::api::Validate(Architecture(8));
  const accelcheck::api::Result broken = accelcheck::api::Validate(Architecture(0));
  Print("valid", valid);
  Print("broken", broken);
  const bool ok = valid.format == "tensil" && valid.outcome == Outcome::kConforms &&
                  valid.errors == 0 && broken.outcome == Outcome::kErrors &&
                  Reports(broken, "tensil.arch.positive");
  std::cout << (ok ? "as expected\n" : "NOT as expected\n");
  return ok ? 0 : 1;
}
