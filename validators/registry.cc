#include <algorithm>

#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/gemini/gemini_format.h"
#include "validators/pte/pte_format.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck {

const std::vector<const Format*>& AllFormats() {
  static const std::vector<const Format*> kFormats = {&pte::PteFormat(), &tensil::TensilFormat(),
                                                      &gemini::GeminiFormat()};
  return kFormats;
}

const Format* FindFormat(std::string_view id) {
  for (const Format* f : AllFormats()) {
    if (f->id() == id) return f;
  }
  return nullptr;
}

const Format* DetectFormat(ByteView bytes) {
  for (const Format* f : AllFormats()) {
    if (f->Detect(bytes)) return f;
  }
  return nullptr;
}

const Rule* FindRule(std::string_view id) {
  for (const Rule* r : core_rules::All()) {
    if (r->id == id) return r;
  }
  for (const Format* f : AllFormats()) {
    for (const Rule* r : f->rules()) {
      if (r->id == id) return r;
    }
  }
  return nullptr;
}

}  // namespace accelcheck
