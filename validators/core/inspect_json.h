// What every format's `inspect` writes the same way (docs/ARCHITECTURE.md
// "Inspect"): an enum field holds the number the file has, and
// `<field>_name` beside it the schema's name for it (null for a value the
// schema does not declare, which validate reports); a union's `type` holds
// the member's name (null when undeclared) and `type_value` its number.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace accelcheck::inspect {

// The schema's name of `value`, or null: flatc's EnumName functions give ""
// for a value the enum does not declare.
template <typename Enum>
nlohmann::json EnumName(Enum value, const char* (*name_of)(Enum)) {
  const char* name = name_of(value);
  return *name != '\0' ? nlohmann::json(name) : nlohmann::json(nullptr);
}

// `field` and `field`_name.
template <typename Enum>
void PutEnum(nlohmann::json& out, const std::string& field, Enum value,
             const char* (*name_of)(Enum)) {
  out[field] = static_cast<int>(value);
  out[field + "_name"] = EnumName(value, name_of);
}

// A union's `type` (its member's name) and `type_value`.
template <typename Enum>
void PutUnionType(nlohmann::json& out, Enum value, const char* (*name_of)(Enum)) {
  out["type"] = EnumName(value, name_of);
  out["type_value"] = static_cast<int>(value);
}

}  // namespace accelcheck::inspect
