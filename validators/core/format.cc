#include "validators/core/format.h"

#include <exception>
#include <map>
#include <new>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck {

std::optional<std::vector<uint8_t>> Format::ReadMember(const InputBuffer&, const ValidateContext&,
                                                       std::string_view, std::string* error) const {
  *error = Str(id(), " files have no members");
  return std::nullopt;
}

const Rule* FindRuleOf(const Format& format, std::string_view id) {
  for (const Rule* rule : core_rules::All()) {
    if (rule->id == id) return rule;
  }
  for (const Rule* rule : format.rules()) {
    if (rule->id == id) return rule;
  }
  return nullptr;
}

void ValidateGuarded(const Format& format, const InputBuffer& input, const ValidateContext& context,
                     DiagnosticSink& sink) {
  try {
    format.Validate(input, context, sink);
  } catch (const std::bad_alloc&) {
    sink.Report(core_rules::kInternalError, {}, "out of memory while checking the file");
  } catch (const std::exception& e) {
    sink.Report(core_rules::kInternalError, {}, Str("unexpected exception: ", e.what()));
  }
}

std::vector<SharedValue> SharedValuesGuarded(const Format& format, const InputBuffer& input,
                                             const ValidateContext& context, DiagnosticSink& sink) {
  try {
    return format.SharedValues(input, context);
  } catch (const std::bad_alloc&) {
    sink.Report(core_rules::kInternalError, {}, "out of memory while reading the file's values");
  } catch (const std::exception& e) {
    sink.Report(core_rules::kInternalError, {}, Str("unexpected exception: ", e.what()));
  }
  return {};
}

void ReportSharedValues(std::span<const InputValues> inputs) {
  std::map<std::string, std::vector<size_t>> holders;  // value -> inputs, in run order
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const SharedValue& value : inputs[i].values) {
      std::vector<size_t>& list = holders[value.name];
      if (list.empty() || list.back() != i) list.push_back(i);
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const SharedValue& value : inputs[i].values) {
      const std::vector<size_t>& list = holders[value.name];
      if (list.size() < 2) continue;
      std::string others;
      for (size_t k : list) {
        if (k != i) others += Str(others.empty() ? "" : ", ", inputs[k].name);
      }
      inputs[i].sink->Report(core_rules::kSharedValue, value.location,
                             Str(value.name, " is also in ", others, ": ", value.meaning));
    }
  }
}

}  // namespace accelcheck
