#include "validators/core/diagnostic.h"

namespace accelcheck {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

std::string_view CategoryName(Category c) {
  switch (c) {
    case Category::kMalformed:
      return "malformed";
    case Category::kInvalid:
      return "invalid";
    case Category::kUnsupported:
      return "unsupported";
    case Category::kLimit:
      return "limit";
    case Category::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace accelcheck
