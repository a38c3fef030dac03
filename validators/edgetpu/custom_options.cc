// EDG-4 to EDG-10, EDG-91 and EDG-96: the keys of custom_op_data.cc, each
// read as the runtime reads it (docs/formats/edgetpu.md §2).
#include "validators/edgetpu/custom_options.h"

#include "validators/core/flexbuffer.h"
#include "validators/core/text.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {

namespace {

// The map and where its bytes are in the file.
struct OptionsMap {
  const EdgetpuOp& op;
  const flex::Map& map;
  DiagnosticSink& sink;

  Location At(uint64_t inner, std::optional<uint64_t> length, std::string_view key) const {
    return Location{op.options_offset + inner, length,
                    key.empty() ? op.options_path : Str(op.options_path, "[\"", key, "\"]")};
  }
  void Report(const Rule& rule, uint64_t inner, std::string_view key, std::string message) const {
    sink.Report(rule, At(inner, std::nullopt, key), std::move(message));
  }
  // The value under `key`, found as the runtime's binary search finds it or,
  // when the keys are out of order (reported on their own), by a scan.
  std::optional<flex::Ref> Find(std::string_view key) const {
    const flex::Map::Lookup found = map.Find(key);
    const auto index = found.by_search ? found.by_search : found.by_scan;
    if (!index) return std::nullopt;
    return map.value(*index);
  }
};

bool IsInteger(flex::Type type) {
  return type == flex::Type::kInt || type == flex::Type::kUInt ||
         type == flex::Type::kIndirectInt || type == flex::Type::kIndirectUInt;
}

// EDG-91: flexbuffers finds keys by binary search.
void CheckKeyOrder(const OptionsMap& m) {
  const auto k = m.map.first_unordered_key();
  if (!k) return;
  const std::string_view key = m.map.key(*k);
  const std::string_view before = m.map.key(*k - 1);
  m.sink.Report(rules::kFlexKeysSorted, m.At(m.map.key_offset(*k), key.size(), ""),
                Str("key ", Quoted(key), " comes after ", Quoted(before),
                    key == before ? ", a duplicate" : ", out of bytewise order",
                    ": the runtime looks keys up by binary search and may not find them"));
}

// EDG-6: the custom-op data version.
void CheckVersion(const OptionsMap& m) {
  const auto version = m.Find("1");
  if (!version) {
    m.Report(rules::kFlexVersion, m.map.offset(), "",
             "the map has no key \"1\", the custom-op data version (0)");
    return;
  }
  flex::Problem why;
  const auto value = IsInteger(version->type()) ? version->AsInt(&why) : std::nullopt;
  if (value && *value == 0) return;
  m.Report(rules::kFlexVersion, version->offset(), "1",
           value ? Str("the custom-op data version is ", *value, ", not 0")
                 : Str("the custom-op data version is a ", flex::TypeName(version->type()),
                       ", not the integer 0"));
}

// EDG-10: the execution preference, read as an int by the runtime.
void CheckPreference(const OptionsMap& m) {
  const auto preference = m.Find("5");
  if (!preference || IsInteger(preference->type())) return;
  m.Report(rules::kPreferenceType, preference->offset(), "5",
           Str("the execution preference is a ", flex::TypeName(preference->type()),
               ", not an integer"));
}

// The element count of an untyped vector, and whether its elements are all
// integers and all strings; nothing for any other value, which the
// runtime's AsVector reads as empty (a typed vector included, EDG-7).
std::optional<uint64_t> VectorSize(const flex::Ref& ref, bool* all_integers, bool* all_strings,
                                   flex::Problem* why) {
  *all_integers = *all_strings = true;
  if (ref.type() != flex::Type::kVector) return std::nullopt;
  const auto vector = ref.AsVector(why);
  if (!vector) return std::nullopt;
  for (uint64_t i = 0; i < vector->size(); ++i) {
    *all_integers = *all_integers && IsInteger(vector->At(i).type());
    *all_strings = *all_strings && vector->At(i).type() == flex::Type::kString;
  }
  return vector->size();
}

// EDG-7, EDG-8: the chips of the packages ("6") and the packages after the
// first ("7").
void CheckChipsAndExtraPackages(const OptionsMap& m) {
  const auto chips = m.Find("6");
  const auto extra = m.Find("7");
  flex::Problem why;
  bool integers = false, strings = false;
  uint64_t packages = 1;
  if (extra) {
    const auto count = VectorSize(*extra, &integers, &strings, &why);
    if (!count || !strings) {
      m.Report(
          rules::kFlexChips, extra->offset(), "7",
          Str("key \"7\" is a ", flex::TypeName(extra->type()),
              count ? " whose elements are not all strings" : "", ", not a vector of packages"));
    } else if (*count != 0) {
      packages += *count;
      m.Report(rules::kMultiplePackages, extra->offset(), "7",
               Str("the operator carries ", packages,
                   " packages; the public runtime runs one (Multiple executables custom op is "
                   "not supported)"));
    }
  }
  if (!chips) return;
  const auto chip_count = VectorSize(*chips, &integers, &strings, &why);
  if (!chip_count || !integers || *chip_count == 0) {
    m.Report(rules::kFlexChips, chips->offset(), "6",
             !chip_count        ? Str("key \"6\" is a ", flex::TypeName(chips->type()),
                                      ", not an untyped vector of chip numbers (the runtime "
                                             "reads it as empty)")
             : *chip_count == 0 ? std::string("key \"6\" lists no chips")
                                : std::string("key \"6\" holds elements that are not integers"));
    return;
  }
  if (*chip_count != packages) {
    m.Report(rules::kFlexChips, chips->offset(), "6",
             Str("key \"6\" names ", *chip_count, " chips for ", packages,
                 " packages (the runtime refuses the operator: Missing raw model data)"));
  }
}

// EDG-5 and the legacy layout: what "4" holds.
std::optional<PackageBytes> PackageOf(const OptionsMap& m) {
  const auto package = m.Find("4");
  if (!package) {
    m.Report(rules::kPackageMissing, m.map.offset(), "",
             "the map has no key \"4\": the runtime reads an empty package");
    return std::nullopt;
  }
  flex::Problem why;
  if (package->type() != flex::Type::kString) {
    m.Report(rules::kPackageType, package->offset(), "4",
             Str("the package is a ", flex::TypeName(package->type()),
                 ", which the runtime reads as an empty string"));
    return std::nullopt;
  }
  const auto bytes = package->AsString(&why);
  if (!bytes) {
    m.sink.Report(rules::kFlexMalformed, m.At(why.offset, std::nullopt, "4"), why.what);
    return std::nullopt;
  }
  // §5.3: the layout before packages is told by its key set, as its bytes
  // can verify as more than one root type.
  const bool old_key = m.Find("3").has_value();
  if (old_key && !HasBytesAt(bytes->bytes, 4, "DWN1")) {
    m.sink.Report(rules::kLegacyPackage, m.At(bytes->offset, bytes->bytes.size(), "4"),
                  "the operator holds bare executables under keys \"3\" and \"4\" with no DWN1 "
                  "package: the layout of 2019 compilers, which no current runtime reads");
    return std::nullopt;
  }
  if (old_key) {
    m.Report(rules::kDeprecatedKey, m.Find("3")->offset(), "3",
             "key \"3\", a deprecated parameter-caching executable, is ignored by the runtime");
  }
  return PackageBytes{bytes->bytes, m.op.options_offset + bytes->offset,
                      Str(m.op.options_path, "[\"4\"]")};
}

}  // namespace

std::optional<PackageBytes> ReadCustomOptions(const EdgetpuOp& op, DiagnosticSink& sink) {
  if (op.custom_options.empty()) return std::nullopt;
  flex::Problem why;
  const auto root = flex::Root(op.custom_options, &why);
  const auto malformed = [&] {
    sink.Report(rules::kFlexMalformed,
                Location{op.options_offset + why.offset, std::nullopt, op.options_path}, why.what);
    return std::nullopt;
  };
  if (!root) return malformed();
  if (root->type() != flex::Type::kMap) {
    sink.Report(rules::kFlexRootMap,
                Location{op.options_offset + root->offset(), std::nullopt, op.options_path},
                Str("the custom options are a ", flex::TypeName(root->type()),
                    ", not a map: the runtime finds no package in them"));
    return std::nullopt;
  }
  const auto map = root->AsMap(&why);
  if (!map) return malformed();
  const OptionsMap m{op, *map, sink};
  CheckKeyOrder(m);
  CheckVersion(m);
  CheckPreference(m);
  CheckChipsAndExtraPackages(m);
  return PackageOf(m);
}

}  // namespace accelcheck::edgetpu
