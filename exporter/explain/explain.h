#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"

namespace podwait {

class Pipeline;

// Pods by (namespace, name).
using PodKeys = std::set<std::pair<std::string, std::string>>;

// One read of the live cluster into `pipeline`, as the exporter reads it (main wires it to
// app/live_read.h; explain never includes app/). *config is the exporter's configuration; with
// `context_namespace` the reader sets its namespaces to the kubeconfig context's (kubectl's
// default namespace). A non-empty `label_selector` (-l) is asked of the API server; the answer is
// then the pods it selects. Errors say what could not be read.
using LiveReader = std::function<Result<std::optional<PodKeys>>(
    Config* config, bool context_namespace, const std::string& label_selector, Timestamp timeout,
    Pipeline& pipeline)>;

// What explain takes from its surroundings.
struct ExplainEnvironment {
  bool color = false;  // colour the table (UseColor)
  LiveReader live;     // empty: --live is refused
  // The command as the user typed it, for --help and errors: "podwait-exporter explain", or
  // "kubectl podwait" when run as the kubectl plugin (live by default).
  std::string program = "podwait-exporter explain";
  bool live_by_default = false;
};

// Whether the table is coloured: only on a terminal, never with NO_COLOR set to anything but ""
// (no-color.org). `no_color` is getenv("NO_COLOR").
bool UseColor(bool stdout_is_terminal, const char* no_color);

// `podwait-exporter explain` (and `kubectl podwait`): the pods of kubectl dumps (-f, JSON or
// YAML, Lists of mixed kinds) or of the live cluster (--live), classified once through the
// exporter's pipeline, printed as a kubectl-like table, names, JSON or YAML.
// Returns the exit code (docs in README.md, "Exit codes"): 0 no selected pod waits on a real
// problem, 1 at least one does (a class that is not an expected wait), 2 bad usage or input that
// cannot be read (the message names the file and the problem). `in` is read for "-f -".
int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err, const ExplainEnvironment& env = {});

std::string ExplainUsage(const ExplainEnvironment& env = {});

}  // namespace podwait
