#pragma once

// `kubectl podwait` (explain --live): one read of the cluster into a Pipeline, the exporter's way.
// The reflectors of InputSources() (the exporter's client, resources, selectors and RBAC) list
// once and stop; then the exporter's PD prober probes every cluster once. The caller evaluates.

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/net/environment.h"

namespace podwait {

// Reads the cluster of *config's Kubernetes flags into `pipeline`. With `context_namespace` the
// namespaces to read are set to the kubeconfig context's namespace ("default" without one, as
// kubectl). A non-empty `label_selector` lists the pods it selects as well (asked of the API
// server): the answer is those pods, by (namespace, name). Fails, naming what, when the API
// server cannot be reached or a resource is not listed within `timeout` (RBAC, a server error).
Result<std::optional<std::set<std::pair<std::string, std::string>>>> ReadClusterOnce(
    Config* config, bool context_namespace, const std::string& label_selector, Timestamp timeout,
    Pipeline& pipeline, const Environment& env = {});

}  // namespace podwait
