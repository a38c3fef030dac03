#include "conformance/mutator.h"

#include "conformance/pte/mutate.h"

namespace accelcheck {

const Mutator* FindMutator(std::string_view format_id) {
  static const Mutator* const kMutators[] = {&pte::PteMutator()};
  for (const Mutator* m : kMutators) {
    if (m->format() == format_id) return m;
  }
  return nullptr;
}

}  // namespace accelcheck
