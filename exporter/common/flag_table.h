#pragma once

// The one command-line parser of podwait's programs (the exporter, `explain`, wait-for-pd): a
// table of flags, each a row with its name, kind, help, and how it sets and shows its value in
// the program's settings struct T. Each program keeps its table beside its settings.
//
// Syntax (Prometheus style): "--name=value", "--name value", a short name ("-f value", and as
// kubectl also "-fvalue" and "-f=value"), booleans
// as "--name", "--no-name" or "--name=true|false"; "-h"/"--help" and "--version" stop the parse
// with that action. An argument that is not a flag is positional. Rows may belong to a group
// (a heading of --help) and a row may be an old spelling of another (DeprecatedAlias): it still
// works, is left out of --help, and the parse says it was used. Pure.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/common/time_format.h"

namespace podwait {

// kRepeated: the flag may be given several times; each value is added to a list (the first one
// given replaces the default list).
enum class FlagKind { kString, kBool, kDuration, kInt, kList, kRepeated };

template <typename T>
struct FlagSpec {
  std::string_view name;  // long name, without "--"
  FlagKind kind;
  std::string_view help;
  // Applies the value; returns an error message (without the flag's name), or "" on success.
  std::function<std::string(T&, const std::string&)> set;
  // Renders the value for --help.
  std::function<std::string(const T&)> show;
  std::string_view short_name = {};  // e.g. "-f"; empty: none
  // kRepeated only: empties the value before the first occurrence (drops the default).
  std::function<void(T&)> clear = {};
  // The heading --help lists the row under (InGroup); empty: none.
  std::string_view group = {};
  // Set on an old spelling kept working (DeprecatedAlias): the name to use instead.
  std::string_view alias_of = {};
};

enum class FlagAction { kRun, kHelp, kVersion };

struct ParsedFlags {
  FlagAction action = FlagAction::kRun;
  std::vector<std::string> positional;  // arguments that are not flags
  // One sentence per deprecated spelling used ("--pd-url is deprecated: use --pd.url"), each
  // once, for the program to log.
  std::vector<std::string> deprecated;
};

// "a, b,c" -> {"a", "b", "c"} (blank items dropped).
inline std::vector<std::string> SplitFlagList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

inline std::string JoinFlagList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// Rows for the common kinds of settings: a member of T, a check, the rendering of its value.
template <typename T>
FlagSpec<T> StringFlag(std::string_view name, std::string_view help, std::string T::*field) {
  return {name, FlagKind::kString, help,
          [field](T& c, const std::string& v) {
            c.*field = v;
            return std::string();
          },
          [field](const T& c) { return c.*field; }};
}

template <typename T>
FlagSpec<T> BoolFlag(std::string_view name, std::string_view help, bool T::*field) {
  return {name, FlagKind::kBool, help,
          [field](T& c, const std::string& v) {
            if (v == "true" || v == "1") {
              c.*field = true;
            } else if (v == "false" || v == "0") {
              c.*field = false;
            } else {
              return std::string("expects true or false, got \"") + v + "\"";
            }
            return std::string();
          },
          [field](const T& c) { return std::string(c.*field ? "true" : "false"); }};
}

template <typename T>
FlagSpec<T> DurationFlag(std::string_view name, std::string_view help, Timestamp T::*field) {
  return {name, FlagKind::kDuration, help,
          [field](T& c, const std::string& v) {
            auto d = ParseDuration(v);
            if (!d) {
              return std::string("expects a duration like 90s, 15m or 1h30m, got \"") + v + "\"";
            }
            c.*field = *d;
            return std::string();
          },
          [field](const T& c) { return FormatDuration(c.*field); }};
}

template <typename T, typename Int>
FlagSpec<T> IntFlag(std::string_view name, std::string_view help, Int T::*field, Int min_value) {
  return {name, FlagKind::kInt, help,
          [field, min_value](T& c, const std::string& v) {
            Int value{};
            auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
            if (ec != std::errc() || ptr != v.data() + v.size() || value < min_value) {
              return std::string("expects an integer >= ") + std::to_string(min_value) +
                     ", got \"" + v + "\"";
            }
            c.*field = value;
            return std::string();
          },
          [field](const T& c) { return std::to_string(c.*field); }};
}

template <typename T>
FlagSpec<T> ListFlag(std::string_view name, std::string_view help,
                     std::vector<std::string> T::*field) {
  return {name, FlagKind::kList, help,
          [field](T& c, const std::string& v) {
            c.*field = SplitFlagList(v);
            return std::string();
          },
          [field](const T& c) { return JoinFlagList(c.*field); }};
}

// A repeatable flag: "--name a --name b" is {"a", "b"}; the first occurrence replaces the
// default, a value given twice is kept once.
template <typename T>
FlagSpec<T> RepeatedFlag(std::string_view name, std::string_view help,
                         std::vector<std::string> T::*field) {
  return {name,
          FlagKind::kRepeated,
          help,
          [field](T& c, const std::string& v) {
            std::vector<std::string>& values = c.*field;
            for (const std::string& have : values) {
              if (have == v) return std::string();
            }
            values.push_back(v);
            return std::string();
          },
          [field](const T& c) { return JoinFlagList(c.*field); },
          {},
          [field](T& c) { (c.*field).clear(); }};
}

// The rows of `table` (flags of Inner) as rows of Outer, setting Outer's member `inner`: so one
// command's table can include another's (explain takes the exporter's classification flags).
template <typename Outer, typename Inner>
std::vector<FlagSpec<Outer>> LiftFlags(std::span<const FlagSpec<Inner>> table,
                                       Inner Outer::*inner) {
  std::vector<FlagSpec<Outer>> out;
  out.reserve(table.size());
  for (const FlagSpec<Inner>& f : table) {
    FlagSpec<Outer> row{
        f.name,
        f.kind,
        f.help,
        [set = f.set, inner](Outer& o, const std::string& v) { return set(o.*inner, v); },
        [show = f.show, inner](const Outer& o) { return show(o.*inner); },
        f.short_name};
    if (f.clear) row.clear = [clear = f.clear, inner](Outer& o) { clear(o.*inner); };
    row.group = f.group;
    row.alias_of = f.alias_of;
    out.push_back(std::move(row));
  }
  return out;
}

// A heading of --help inside a table given to Grouped(): the rows after it, up to the next
// heading, are listed under `title`.
template <typename T>
FlagSpec<T> Heading(std::string_view title) {
  FlagSpec<T> h{};
  h.group = title;
  return h;
}

// `rows` without their Heading() rows, each row carrying the title of the heading above it: a
// flat table read (and diffed) as one list, shown in groups.
template <typename T>
std::vector<FlagSpec<T>> Grouped(std::vector<FlagSpec<T>> rows) {
  std::vector<FlagSpec<T>> out;
  std::string_view group;
  for (FlagSpec<T>& r : rows) {
    if (r.name.empty()) {
      group = r.group;
      continue;
    }
    r.group = group;
    out.push_back(std::move(r));
  }
  return out;
}

// The old spelling `old_name` of `row`: it sets the same value, is left out of --help, and a
// parse that meets it says so (ParsedFlags::deprecated).
template <typename T>
FlagSpec<T> DeprecatedAlias(const FlagSpec<T>& row, std::string_view old_name) {
  FlagSpec<T> alias = row;
  alias.name = old_name;
  alias.short_name = {};
  alias.alias_of = row.name;
  return alias;
}

namespace flag_table_internal {

template <typename T>
const FlagSpec<T>* Find(std::span<const FlagSpec<T>> table, std::string_view name, bool is_short) {
  for (const FlagSpec<T>& f : table) {
    if (is_short ? (!f.short_name.empty() && f.short_name == name) : f.name == name) return &f;
  }
  return nullptr;
}

// A deprecated spelling used: one sentence, once.
template <typename T>
void NoteDeprecated(const FlagSpec<T>& flag, std::vector<std::string>* notes) {
  if (flag.alias_of.empty()) return;
  std::string note = "flag --" + std::string(flag.name) + " is deprecated: use --" +
                     std::string(flag.alias_of) + " (it works the same)";
  if (std::find(notes->begin(), notes->end(), note) == notes->end()) notes->push_back(note);
}

}  // namespace flag_table_internal

// Parses `args` into *values (which holds the defaults); the error names the flag.
template <typename T>
Result<ParsedFlags> ParseFlagTable(std::span<const FlagSpec<T>> table,
                                   const std::vector<std::string>& args, T* values) {
  using flag_table_internal::Find;
  using R = Result<ParsedFlags>;
  ParsedFlags parsed;
  std::vector<const FlagSpec<T>*> repeated_seen;  // kRepeated flags given so far
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      parsed.action = FlagAction::kHelp;
      return R::Ok(std::move(parsed));
    }
    if (arg == "--version") {
      parsed.action = FlagAction::kVersion;
      return R::Ok(std::move(parsed));
    }
    const bool is_long = arg.rfind("--", 0) == 0;
    std::string name = is_long ? arg.substr(2) : arg;
    const FlagSpec<T>* flag = nullptr;
    std::optional<std::string> value;
    if (is_long) {
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      flag = Find(table, name, false);
      if (flag == nullptr && name.rfind("no-", 0) == 0) {
        const FlagSpec<T>* negated = Find(table, std::string_view(name).substr(3), false);
        if (negated != nullptr && negated->kind == FlagKind::kBool && !value) {
          if (std::string err = negated->set(*values, "false"); !err.empty()) {
            return R::Fail("flag " + arg + ": " + err);
          }
          flag_table_internal::NoteDeprecated(*negated, &parsed.deprecated);
          continue;
        }
      }
      if (flag == nullptr) return R::Fail("unknown flag --" + name + " (see --help)");
    } else if (!arg.empty() && arg[0] == '-') {
      flag = Find(table, name, true);
      // kubectl's "-nshop" and "-n=shop": a short flag with its value attached.
      if (flag == nullptr && name.size() > 2) {
        flag = Find(table, std::string_view(name).substr(0, 2), true);
        if (flag != nullptr && flag->kind != FlagKind::kBool) {
          value = name.substr(name[2] == '=' ? 3 : 2);
          name = name.substr(0, 2);
        } else {
          flag = nullptr;
        }
      }
      if (flag == nullptr) return R::Fail("unknown short flag " + arg + " (flags are --long)");
    } else {
      parsed.positional.push_back(arg);
      continue;
    }
    const std::string written = is_long ? "--" + name : arg;
    if (!value) {
      if (flag->kind == FlagKind::kBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return R::Fail("flag " + written + " needs a value");
      }
    }
    if (flag->kind == FlagKind::kRepeated &&
        std::find(repeated_seen.begin(), repeated_seen.end(), flag) == repeated_seen.end()) {
      repeated_seen.push_back(flag);
      if (flag->clear) flag->clear(*values);
    }
    if (std::string err = flag->set(*values, *value); !err.empty()) {
      return R::Fail("flag " + written + ": " + err);
    }
    flag_table_internal::NoteDeprecated(*flag, &parsed.deprecated);
  }
  return R::Ok(std::move(parsed));
}

// How --help shows the rows: Prometheus's programs (the exporter, wait-for-pd) or kubectl's
// (explain and `kubectl podwait`).
enum class FlagHelpStyle { kPrometheus, kKubectl };

namespace flag_table_internal {

// The default of a row as kubectl prints it: 'text', false, 30s, [a,b].
template <typename T>
std::string KubectlDefault(const FlagSpec<T>& f, const T& defaults) {
  const std::string d = f.show(defaults);
  switch (f.kind) {
    case FlagKind::kString:
      return "'" + d + "'";
    case FlagKind::kList:
    case FlagKind::kRepeated:
      return "[" + d + "]";
    case FlagKind::kBool:
    case FlagKind::kDuration:
    case FlagKind::kInt:
      break;
  }
  return d;
}

// One row: Prometheus style gives the default only when there is one (a string, a list), or
// when a boolean is on; kubectl style always, after '=' (kubectl's own help: --watch=false:).
template <typename T>
void RowUsage(const FlagSpec<T>& f, const T& defaults, FlagHelpStyle style,
              std::ostringstream& out) {
  const std::string short_name = f.short_name.empty() ? "" : std::string(f.short_name) + ", ";
  if (style == FlagHelpStyle::kKubectl) {
    out << "    " << short_name << "--" << f.name << "=" << KubectlDefault(f, defaults) << ":\n\t"
        << f.help << (f.kind == FlagKind::kRepeated ? " (repeatable)" : "") << "\n\n";
    return;
  }
  out << (short_name.empty() ? "      " : "  " + short_name) << "--" << f.name;
  if (f.kind != FlagKind::kBool)
    out << "=" << (f.kind == FlagKind::kDuration ? "DURATION" : "VALUE");
  out << "\n          " << f.help;
  if (f.kind == FlagKind::kRepeated) out << " (repeatable)";
  const std::string d = f.show(defaults);
  if (f.kind == FlagKind::kBool) {
    if (d == "true") out << " (default: true)";
  } else if (!d.empty()) {
    out << " (default: \"" << d << "\")";
  }
  out << "\n";
}

}  // namespace flag_table_internal

// The flags' part of a --help text: one entry per row (deprecated spellings left out), with its
// default taken from `defaults`, under the heading of its group when the group changes.
template <typename T>
std::string FlagTableUsage(std::span<const FlagSpec<T>> table, const T& defaults,
                           FlagHelpStyle style = FlagHelpStyle::kPrometheus) {
  std::ostringstream out;
  std::string_view group;
  for (const FlagSpec<T>& f : table) {
    if (!f.alias_of.empty()) continue;
    if (f.group != group && !f.group.empty()) {
      out << (style == FlagHelpStyle::kKubectl ? "" : "\n") << f.group << ":\n";
    }
    group = f.group;
    flag_table_internal::RowUsage(f, defaults, style, out);
  }
  return out.str();
}

}  // namespace podwait
