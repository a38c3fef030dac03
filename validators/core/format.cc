#include "validators/core/format.h"

#include <exception>
#include <new>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck {

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

}  // namespace accelcheck
