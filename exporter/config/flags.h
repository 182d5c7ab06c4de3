#pragma once

#include <span>
#include <string>
#include <vector>

#include "exporter/common/flag_table.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"

namespace podwait {

struct ParsedConfig {
  FlagAction action = FlagAction::kRun;  // --help and --version stop before the checks
  Config config;
  std::vector<std::string> positional;  // arguments that are not flags (e.g. a subcommand)
};

// Parses Prometheus-style flags: "--name=value", "--name value", booleans as "--name",
// "--no-name" or "--name=true|false". Durations are Go-style ("90s", "15m"). Pure. The error
// names the flag.
Result<ParsedConfig> ParseFlags(const std::vector<std::string>& args);

// What flags cannot check one by one (--shard below --total-shards, ...).
Result<bool> CheckConfig(const Config& config);

// The exporter's flag table (explain takes its classification flags too).
std::span<const FlagSpec<Config>> ConfigFlags();

// The --help text.
std::string FlagUsage();

// Parses "tikv=pd,tidb=pd+tikv" into a dependency map.
Result<DependencyMap> ParseDependencyMap(const std::string& text);

}  // namespace podwait
