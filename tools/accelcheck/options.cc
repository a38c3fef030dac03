#include "tools/accelcheck/options.h"

#include <algorithm>
#include <charconv>
#include <iostream>

#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

std::optional<std::string> ParsedArgs::Get(const std::string& flag) const {
  auto it = values.find(flag);
  if (it == values.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

const std::vector<std::string>& ParsedArgs::All(const std::string& flag) const {
  static const std::vector<std::string> kNone;
  auto it = values.find(flag);
  return it == values.end() ? kNone : it->second;
}

namespace {

// The flag spelled `name` after "--" (`is_long`) or "-": "-o" names the flag
// "o", "-j" the flag whose short name is 'j'.
const Flag* FindFlag(const std::vector<Flag>& flags, const std::string& name, bool is_long) {
  for (const Flag& f : flags) {
    if (f.name == name) return &f;
    if (!is_long && f.short_name != 0 && name.size() == 1 && name[0] == f.short_name) return &f;
  }
  return nullptr;
}

}  // namespace

std::optional<ParsedArgs> Parse(const std::vector<std::string>& args,
                                const std::vector<Flag>& flags, std::string* error) {
  ParsedArgs parsed;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    const bool is_long = arg[1] == '-';
    std::string name = arg.substr(is_long ? 2 : 1);
    std::optional<std::string> inline_value;
    if (size_t eq = name.find('='); is_long && eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    // A short option's value may follow it in the same argument, as getopt
    // reads "-j4" and "-oreport.json"; short options are not bundled.
    if (!is_long && name.size() > 1) {
      const Flag* fused = FindFlag(flags, name.substr(0, 1), false);
      if (fused == nullptr || !fused->takes_value) {
        *error = "unknown option " + arg;
        return std::nullopt;
      }
      inline_value = name.substr(1);
      name.resize(1);
    }
    const std::string spelled = (is_long ? "--" : "-") + name;
    const Flag* flag = FindFlag(flags, name, is_long);
    if (flag == nullptr) {
      *error = "unknown option " + spelled;
      return std::nullopt;
    }
    if (!flag->takes_value) {
      if (inline_value) {
        *error = "option " + spelled + " takes no value";
        return std::nullopt;
      }
      parsed.values[flag->name];
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) {
        *error = "option " + spelled + " needs a value (" + flag->value_name + ")";
        return std::nullopt;
      }
      inline_value = args[++i];
    }
    parsed.values[flag->name].push_back(*inline_value);
    parsed.in_order.emplace_back(flag->name, *inline_value);
  }
  return parsed;
}

std::optional<uint64_t> ParseCount(std::string_view text, std::string* error) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    *error = "expected a non-negative integer, got '" + std::string(text) + "'";
    return std::nullopt;
  }
  return value;
}

std::string FlagHelp(const std::vector<Flag>& flags) {
  std::string out;
  for (const Flag& f : flags) {
    const std::string dashes = f.name.size() == 1 ? "-" : "--";
    const std::string short_name = f.short_name != 0 ? Str("-", f.short_name, ", ") : "";
    std::string left =
        "  " + short_name + dashes + f.name + (f.takes_value ? " " + f.value_name : "");
    if (left.size() < 28)
      left.resize(28, ' ');
    else
      left += "  ";
    out += left + f.help + "\n";
  }
  return out;
}

const std::vector<Flag>& CommonFlags() {
  static const std::vector<Flag> kFlags = {
      {"help", false, "", "print this help", 'h'},
      {"quiet", false, "", "print nothing but errors and what the command is asked for", 'q'},
  };
  return kFlags;
}

std::vector<Flag> WithCommonFlags(const std::vector<Flag>& flags) {
  std::vector<Flag> all = flags;
  for (const Flag& common : CommonFlags()) {
    auto same =
        std::find_if(all.begin(), all.end(), [&](const Flag& f) { return f.name == common.name; });
    if (same != all.end()) {
      *same = common;
    } else {
      all.push_back(common);
    }
  }
  return all;
}

void PrintHelp(const CommandSpec& spec, std::ostream& out) {
  out << spec.usage << "\noptions:\n" << FlagHelp(WithCommonFlags(spec.flags));
}

std::optional<ParsedArgs> ParseCommand(const CommandSpec& spec,
                                       const std::vector<std::string>& args, ExitCode* exit_code,
                                       std::string* usage_error) {
  std::string error;
  std::optional<ParsedArgs> parsed = Parse(args, WithCommonFlags(spec.flags), &error);
  if (!parsed) {
    *exit_code = UsageError(spec, error);
    if (usage_error != nullptr) *usage_error = error;
    return std::nullopt;
  }
  if (parsed->Has("help")) {
    PrintHelp(spec, std::cout);
    *exit_code = ExitCode::kConforms;
    return std::nullopt;
  }
  return parsed;
}

ExitCode UsageError(const CommandSpec& spec, const std::string& message) {
  std::cerr << "accelcheck " << spec.name << ": " << OneLine(message) << "\n" << spec.usage;
  return ExitCode::kUsage;
}

ExitCode IoError(const CommandSpec& spec, const std::string& message) {
  std::cerr << "accelcheck " << spec.name << ": " << OneLine(message) << "\n";
  return ExitCode::kFailure;
}

}  // namespace accelcheck::cli
