#pragma once

#include <string>
#include <vector>

#include "exporter/config/config.h"

namespace podwait {

struct FlagParseResult {
  enum class Action { kRun, kHelp, kVersion, kError };
  Action action = Action::kRun;
  Config config;
  std::string error;                    // for kError: what was wrong, naming the flag
  std::vector<std::string> positional;  // arguments that are not flags (e.g. a subcommand)
};

// Parses Prometheus-style flags: "--name=value", "--name value", booleans as "--name",
// "--no-name" or "--name=true|false". Durations are Go-style ("90s", "15m"). Pure.
FlagParseResult ParseFlags(const std::vector<std::string>& args);

// The --help text.
std::string FlagUsage();

// Parses "tikv=pd,tidb=pd+tikv" into a dependency map; returns false and sets *error when
// malformed.
bool ParseDependencyMap(const std::string& text,
                        std::map<std::string, std::vector<Dependency>>* out, std::string* error);

}  // namespace podwait
