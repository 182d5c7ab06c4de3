#pragma once

// Pods: the pure parser from a Kubernetes Pod document to the compact PodRecord, and the
// reflector handler that keeps the PodStore equal to the API server's pods.

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/model/types.h"
#include "exporter/sources/reflector_options.h"
#include "exporter/state/pod_store.h"

namespace podwait {

// The pod annotation naming the ProvisioningRequest a pod consumes (cluster-autoscaler
// apis/provisioningrequest/autoscaling.x-k8s.io/v1/types.go, ProvisioningRequestPodAnnotationKey),
// and the older key that Kueue wrote before it (read when the first is absent). Object names are
// at most 253 bytes; a longer value is cut there.
inline constexpr std::string_view kConsumeProvisioningRequest =
    "autoscaling.x-k8s.io/consume-provisioning-request";
inline constexpr std::string_view kConsumeProvisioningRequestDeprecated =
    "cluster-autoscaler.kubernetes.io/consume-provisioning-request";
inline constexpr size_t kMaxObjectName = 253;

struct PodParseOptions {
  std::string cluster_label = "app.kubernetes.io/instance";
  std::string component_label = "app.kubernetes.io/component";
  // Read when the labels above are absent or empty (tidb-operator v2 pods); empty: no fallback.
  std::string v2_cluster_label = "pingcap.com/cluster";
  std::string v2_component_label = "pingcap.com/component";
  // A pod carrying this label belongs to a tidb-operator v2 instance (PodRecord::v2_instance).
  std::string v2_instance_label = "pingcap.com/instance";
  size_t max_message_bytes = 1024;  // condition and container messages are cut to this (UTF-8 safe)
  // A pod that is Ready and not being deleted keeps only its Ready condition (PodRecord).
  bool compact_ready = true;
  // The tag of the pod reflector (PodRecord::source): 0 for --selector, 1 for --selector.v2.
  uint8_t source = 0;

  static PodParseOptions FromConfig(const Config& config);
};

// Fills a PodRecord with only the fields it lists (model/types.h); of the conditions, only
// PodScheduled, Initialized, ContainersReady and Ready are kept. A pod whose Ready condition is
// True and that is not being deleted is kept compact (options.compact_ready): the compact_ready
// flag and the Ready condition's lastTransitionTime, nothing else of its status or spec. Pure. A
// document that is not an object, or lacks metadata.uid/name/namespace, is an error; unknown or
// malformed optional fields are left at their defaults.
Result<PodRecord> ParsePod(const rapidjson::Value& object, const PodParseOptions& options);

// The subtrees of a pod that ParsePod never reads, for json::SkipPaths (ReflectorOptions::
// skip_fields): managedFields and the big parts of spec (containers and init containers with their
// env, probes and mounts; affinity; tolerations). ParsePod of a document parsed without them is
// the ParsePod of the full document. Keep it in step with ParsePod: of spec it reads only the
// claims of volumes[].
const std::vector<std::string>& PodSkippedFields();

// "True", "False"; anything else is Unknown.
ConditionStatus ParseConditionStatus(std::string_view s);

// Cuts `text` to at most max_bytes without splitting a UTF-8 sequence.
std::string BoundedText(std::string_view text, size_t max_bytes);

// Keeps a PodStore equal to the pods a reflector sees. With a namespace scope, a (re)list replaces
// only that namespace's pods, so one PodSource per watched namespace can share one store.
// Called only from its reflector's thread (ReflectorHandler contract).
class PodSource final : public ReflectorHandler {
 public:
  PodSource(PodStore& store, PodParseOptions options, std::string namespace_scope = {});

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  std::optional<size_t> ObjectCount() const override { return store_.Size(); }

 private:
  PodStore& store_;
  const PodParseOptions options_;
  const std::string scope_;
  std::vector<PodPtr> staged_;  // the list in progress
};

// Reflector options for the pods the exporter watches: one per namespace of config.namespaces
// (name "pods/<namespace>"), or one over all namespaces (name "pods"), with config.selector;
// then, unless config.selector_v2 is empty, the same with it (names "pods-v2[/<namespace>]"):
// tidb-operator v2 pods without the legacy labels. The two selectors are disjoint (the default
// v2 selector excludes the key of the default --selector), so a pod with both label sets is
// listed once. Parse the pods of each with PodSourceTag(options) as PodParseOptions::source.
// Their skip_fields are PodSkippedFields().
std::vector<ReflectorOptions> PodReflectorOptions(const Config& config);
// The PodRecord::source of the pods of a PodReflectorOptions entry.
uint8_t PodSourceTag(const ReflectorOptions& options);

}  // namespace podwait
