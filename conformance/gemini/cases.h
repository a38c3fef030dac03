// The Gemini conformance cases: a schedule from the reference scheduler and
// one change of it per rule, each naming the rule and the JSON pointer the
// validator must report.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validators/core/diagnostic.h"

namespace accelcheck::gemini {

struct CaseMutation {
  const Rule* rule;
  std::string path;  // the JSON pointer reported
  bool with_frontend = false;
  std::function<void(nlohmann::json&)> change;    // on the parsed base
  std::function<void(std::string&)> text_change;  // or on its text
  std::vector<const Rule*> also;                  // rules that break together with it
};

// The base: two layers on a 2x1 mesh, so that cores forward to each other.
std::string CaseBaseIr();
std::string CaseBaseFrontend();
const std::vector<CaseMutation>& CaseMutations();

// Writes DIR/gemini/... and appends the manifest entries to `cases`.
bool WriteGeminiCases(const std::filesystem::path& dir, nlohmann::json& cases, std::string* error);

}  // namespace accelcheck::gemini
