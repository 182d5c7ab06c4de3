#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
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

// What explain asks of a live read (main wires it to app/live_read.h; explain never includes
// app/). With `context_namespace` the reader sets *config's namespaces to the kubeconfig
// context's (kubectl's default namespace). A non-empty `label_selector` (-l) is asked of the API
// server; the answer is then the pods it selects. `timeout` bounds the first read as a whole;
// with `watch` (-w) the read keeps the pipeline current until it is destroyed.
struct LiveRequest {
  bool context_namespace = false;
  std::string label_selector;
  Timestamp timeout = 30 * kSecond;
  bool watch = false;
};

// A live read of the cluster into the pipeline it was given.
class LiveRead {
 public:
  virtual ~LiveRead() = default;
  // The pods -l selects now, by (namespace, name); nullopt without -l.
  virtual std::optional<PodKeys> Selected() const = 0;
  // Hands what the read polls (the cluster-autoscaler status) to the pipeline, before each
  // evaluation.
  virtual void Refresh(Pipeline& pipeline) = 0;
};

// *config is the exporter's configuration (with kubectl's flags in its kube_* fields). Errors
// say what could not be read.
using LiveReader = std::function<Result<std::unique_ptr<LiveRead>>(
    Config* config, const LiveRequest& request, Pipeline& pipeline)>;

// What explain takes from its surroundings.
struct ExplainEnvironment {
  bool color = false;  // colour the table (UseColor)
  LiveReader live;     // empty: --live is refused
  // The command as the user typed it, for --help and errors: "podwait-exporter explain", or
  // "kubectl podwait" when run as the kubectl plugin (live by default).
  std::string program = "podwait-exporter explain";
  bool live_by_default = false;
  // -w: catch_stop() is called once before the read (from then on SIGINT and SIGTERM ask to
  // stop); wait_for_stop(ms) waits up to ms and is true once asked. Either empty: -w is refused.
  std::function<void()> catch_stop;
  std::function<bool(Timestamp)> wait_for_stop;
  // How often -w evaluates again.
  Timestamp watch_interval = kSecond;
};

// Whether the table is coloured: only on a terminal, never with NO_COLOR set to anything but ""
// (no-color.org). `no_color` is getenv("NO_COLOR").
bool UseColor(bool stdout_is_terminal, const char* no_color);

// `podwait-exporter explain` (and `kubectl podwait`): the pods of kubectl dumps (-f, JSON or
// YAML, Lists of mixed kinds) or of the live cluster (--live), classified once through the
// exporter's pipeline, printed as a kubectl-like table, names, JSON or YAML; with -w (live), then
// the rows whose verdict changes, as kubectl get -w, until SIGINT.
// Returns the exit code (docs in README.md, "Exit codes"): 0 no selected pod waits on a real
// problem (and -w stopped by the user), 1 at least one does (a class that is not an expected
// wait), 2 bad usage or input that cannot be read (the message names the file and the problem;
// input without a pod is such input: no data is no all-clear). `in` is read for "-f -".
int RunExplain(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
               std::ostream& err, const ExplainEnvironment& env = {});

std::string ExplainUsage(const ExplainEnvironment& env = {});

}  // namespace podwait
