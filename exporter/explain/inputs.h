#pragma once

// explain's offline inputs: kubectl dumps (JSON or YAML; one List of mixed kinds, a single
// object, or several YAML documents) read into the exporter's pipeline, each object routed by its
// kind to the store its reflector would have filled.

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/common/selector.h"
#include "exporter/config/config.h"
#include "exporter/evaluate/pipeline.h"
#include "exporter/explain/explain.h"

namespace podwait {

struct FileInputs {
  PodKeys selected;                       // the pods `selector` selects
  std::map<std::string, size_t> skipped;  // objects of kinds explain does not read, by kind
};

// Reads every file of `files` ("-" is `in`) into the pipeline's stores: Pods, Events (core v1 and
// events.k8s.io/v1: evidence of their pods), TidbClusters, tidb-operator v2 objects and the
// cluster-autoscaler status ConfigMap (config.ca_status_namespace/name); other kinds are skipped
// and counted. An error names the file (and the item) and what is wrong with it.
Result<FileInputs> LoadFiles(const std::vector<std::string>& files, std::istream& in,
                             const Config& config, const Selector& selector, Pipeline& pipeline);

// Answers the PD probes of every cluster of the pipeline from files:
// <dir>/<namespace>/<cluster>/<endpoint>.json (health, leader, members, cluster_status, stores,
// config_replicate); a missing file answers like a PD that cannot be reached, a file starting
// with "HTTP 500\n" replays that status.
Result<bool> ProbePdFromFiles(const std::string& dir, Timestamp now, Pipeline& pipeline);

}  // namespace podwait
