#include "exporter/sources/pods.h"

#include "exporter/common/json.h"
#include "exporter/kube/watch_protocol.h"

namespace podwait {

ConditionStatus ParseConditionStatus(std::string_view s) {
  if (s == "True") return ConditionStatus::kTrue;
  if (s == "False") return ConditionStatus::kFalse;
  return ConditionStatus::kUnknown;
}

namespace {

using json::Array;
using json::Member;
using json::Object;
using json::Str;
using json::Time;

// The pod conditions classification reads; others (readiness gates) are not kept, to keep
// records small. PodReadyToStartContainers (PodHasNetwork before 1.29) is kept only while False:
// the sandbox is not ready (classify/volumes.h). DisruptionTarget only while True: the kubelet
// (TerminationByKubelet) or another controller ended the pod, which a Failed v2 pod's evidence
// says (classify/starting.h).
bool IsKeptCondition(const rapidjson::Value& c) {
  std::string_view type = Str(&c, "type");
  if (type == "PodReadyToStartContainers" || type == "PodHasNetwork") {
    return ParseConditionStatus(Str(&c, "status")) == ConditionStatus::kFalse;
  }
  if (type == "DisruptionTarget") {
    return ParseConditionStatus(Str(&c, "status")) == ConditionStatus::kTrue;
  }
  return type == "PodScheduled" || type == "Initialized" || type == "ContainersReady" ||
         type == "Ready";
}

PodPhase ParsePhase(std::string_view s) {
  if (s == "Pending") return PodPhase::kPending;
  if (s == "Running") return PodPhase::kRunning;
  if (s == "Succeeded") return PodPhase::kSucceeded;
  if (s == "Failed") return PodPhase::kFailed;
  return PodPhase::kUnknown;
}

ContainerStatus ParseContainerStatus(const rapidjson::Value& v, size_t max_message) {
  ContainerStatus c;
  c.name = std::string(Str(&v, "name"));
  c.ready = json::Bool(&v, "ready");
  c.restart_count = static_cast<int32_t>(json::Int(&v, "restartCount"));
  const rapidjson::Value* state = Object(&v, "state");
  bool exit_known = false;
  if (const rapidjson::Value* w = Object(state, "waiting")) {
    c.state = ContainerState::kWaiting;
    c.reason = std::string(Str(w, "reason"));
    c.message = BoundedText(Str(w, "message"), max_message);
  } else if (const rapidjson::Value* r = Object(state, "running")) {
    c.state = ContainerState::kRunning;
    c.started_at = Time(r, "startedAt");
  } else if (const rapidjson::Value* t = Object(state, "terminated")) {
    c.state = ContainerState::kTerminated;
    c.reason = std::string(Str(t, "reason"));
    c.message = BoundedText(Str(t, "message"), max_message);
    c.exit_code = static_cast<int32_t>(json::Int(t, "exitCode"));
    c.started_at = Time(t, "startedAt");
    exit_known = true;
  }
  if (!exit_known) {
    if (const rapidjson::Value* lt = Object(Object(&v, "lastState"), "terminated")) {
      c.exit_code = static_cast<int32_t>(json::Int(lt, "exitCode"));
    }
  }
  return c;
}

std::vector<ContainerStatus> ParseContainerStatuses(const rapidjson::Value* status,
                                                    const char* field, size_t max_message) {
  std::vector<ContainerStatus> out;
  const rapidjson::Value* list = Array(status, field);
  if (list == nullptr) return out;
  out.reserve(list->Size());
  for (const auto& item : list->GetArray()) {
    if (item.IsObject()) out.push_back(ParseContainerStatus(item, max_message));
  }
  return out;
}

}  // namespace

PodParseOptions PodParseOptions::FromConfig(const Config& config) {
  PodParseOptions o;
  o.cluster_label = config.cluster_label;
  o.component_label = config.component_label;
  o.v2_cluster_label = config.v2_cluster_label;
  o.v2_component_label = config.v2_component_label;
  o.v2_instance_label = config.v2_instance_label;
  return o;
}

std::string BoundedText(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back off over UTF-8 continuation bytes (10xxxxxx) so no sequence is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut));
}

Result<PodRecord> ParsePod(const rapidjson::Value& object, const PodParseOptions& options) {
  using R = Result<PodRecord>;
  if (!object.IsObject()) return R::Fail("pod is not a JSON object");
  const rapidjson::Value* meta = Object(&object, "metadata");
  if (meta == nullptr) return R::Fail("pod without metadata");
  PodRecord pod;
  pod.uid = std::string(Str(meta, "uid"));
  pod.source = options.source;
  pod.namespace_ = std::string(Str(meta, "namespace"));
  pod.name = std::string(Str(meta, "name"));
  if (pod.uid.empty() || pod.name.empty() || pod.namespace_.empty()) {
    return R::Fail("pod without metadata.uid, name or namespace");
  }
  pod.resource_version = std::string(Str(meta, "resourceVersion"));
  pod.created = Time(meta, "creationTimestamp");
  if (pod.created == 0 && json::Member(*meta, "creationTimestamp") != nullptr &&
      !json::Member(*meta, "creationTimestamp")->IsNull()) {
    // Empty, not RFC 3339, or before 2000 (Go's zero time): every wait would be measured from
    // 1970 or year 1 (6.4e10 s).
    return R::Fail("pod without a plausible metadata.creationTimestamp");
  }
  pod.deleted = Time(meta, "deletionTimestamp");
  if (const rapidjson::Value* labels = Object(meta, "labels")) {
    pod.cluster = std::string(Str(labels, options.cluster_label.c_str()));
    pod.component = std::string(Str(labels, options.component_label.c_str()));
    // A tidb-operator v2 pod names its cluster and component with pingcap.com/* labels; the
    // app.kubernetes.io/* ones are deprecated copies that v2 will stop writing. Both name the same
    // cluster (the Cluster CR's name), so tidb_cluster stays <namespace>-<cluster> either way.
    if (pod.cluster.empty() && !options.v2_cluster_label.empty()) {
      pod.cluster = std::string(Str(labels, options.v2_cluster_label.c_str()));
    }
    if (pod.component.empty() && !options.v2_component_label.empty()) {
      pod.component = std::string(Str(labels, options.v2_component_label.c_str()));
    }
    pod.v2_instance = !options.v2_instance_label.empty() &&
                      !Str(labels, options.v2_instance_label.c_str()).empty();
    pod.owner = PodOwnerOf(Str(labels, kAppNameLabel.data()), pod.component);
  }
  const rapidjson::Value* status = Object(&object, "status");
  pod.phase = ParsePhase(Str(status, "phase"));
  const rapidjson::Value* conds = Array(status, "conditions");

  // A Ready pod that is not being deleted is not waiting: keep only its Ready condition.
  if (options.compact_ready && conds != nullptr && pod.deleted == 0) {
    for (const auto& c : conds->GetArray()) {
      if (Str(&c, "type") != "Ready") continue;
      if (ParseConditionStatus(Str(&c, "status")) == ConditionStatus::kTrue) {
        pod.compact_ready = true;
        pod.compact_ready_since = Time(&c, "lastTransitionTime");
        return R::Ok(std::move(pod));
      }
      break;
    }
  }

  PodDetail& detail = pod.mutable_detail();
  // status.reason and status.message: the kubelet's word on a pod it ended (Evicted, with what the
  // node ran short of; NodeShutdown, OutOfcpu, ...).
  if (pod.phase == PodPhase::kFailed) {
    detail.status_reason = BoundedText(Str(status, "reason"), kMaxObjectName);
    detail.status_message = BoundedText(Str(status, "message"), options.max_message_bytes);
  }
  if (const rapidjson::Value* annotations = Object(meta, "annotations")) {
    std::string_view request = Str(annotations, kConsumeProvisioningRequest.data());
    if (request.empty()) {
      request = Str(annotations, kConsumeProvisioningRequestDeprecated.data());
    }
    detail.provisioning_request = BoundedText(request, kMaxObjectName);
  }
  const rapidjson::Value* spec = Object(&object, "spec");
  if (const rapidjson::Value* volumes = Array(spec, "volumes")) {
    for (const auto& v : volumes->GetArray()) {
      if (const rapidjson::Value* pvc = Object(&v, "persistentVolumeClaim")) {
        std::string_view claim = Str(pvc, "claimName");
        if (!claim.empty()) detail.claims.emplace_back(claim);
      } else if (Object(&v, "ephemeral") != nullptr && !Str(&v, "name").empty()) {
        // The claim of a generic ephemeral volume is named <pod>-<volume> (KEP-1698).
        detail.claims.push_back(pod.name + "-" + std::string(Str(&v, "name")));
      }
    }
  }
  if (conds != nullptr) {
    size_t kept = 0;
    for (const auto& c : conds->GetArray()) kept += IsKeptCondition(c);
    detail.conditions.reserve(kept);
    for (const auto& c : conds->GetArray()) {
      std::string_view type = Str(&c, "type");
      if (!IsKeptCondition(c)) continue;
      PodCondition cond;
      cond.type = std::string(type);
      cond.status = ParseConditionStatus(Str(&c, "status"));
      cond.reason = std::string(Str(&c, "reason"));
      cond.message = BoundedText(Str(&c, "message"), options.max_message_bytes);
      cond.last_transition = Time(&c, "lastTransitionTime");
      detail.conditions.push_back(std::move(cond));
    }
  }
  detail.init_containers =
      ParseContainerStatuses(status, "initContainerStatuses", options.max_message_bytes);
  detail.containers =
      ParseContainerStatuses(status, "containerStatuses", options.max_message_bytes);
  return R::Ok(std::move(pod));
}

const std::vector<std::string>& PodSkippedFields() {
  static const std::vector<std::string> fields = {"metadata.managedFields", "spec.containers",
                                                  "spec.initContainers", "spec.affinity",
                                                  "spec.tolerations"};
  return fields;
}

PodSource::PodSource(PodStore& store, PodParseOptions options, std::string namespace_scope)
    : store_(store), options_(std::move(options)), scope_(std::move(namespace_scope)) {}

void PodSource::OnListBegin() { staged_.clear(); }

bool PodSource::OnListItem(const rapidjson::Value& object) {
  Result<PodRecord> r = ParsePod(object, options_);
  if (!r.ok()) return false;
  staged_.push_back(std::make_shared<const PodRecord>(std::move(*r.value)));
  return true;
}

void PodSource::OnListEnd(const std::string&) {
  store_.Replace(std::move(staged_), scope_, options_.source);
  staged_ = {};
}

void PodSource::OnListAbort() { staged_ = {}; }

bool PodSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  Result<PodRecord> r = ParsePod(object, options_);
  if (!r.ok()) return false;
  PodRecord& pod = *r.value;
  if (type == WatchEventType::kDeleted) {
    store_.Delete(pod.uid, pod.namespace_, pod.name, options_.source);
  } else {
    store_.Upsert(std::move(pod));
  }
  return true;
}

std::vector<ReflectorOptions> PodReflectorOptions(const Config& config) {
  std::vector<ReflectorOptions> out = ReflectorOptionsPerNamespace(config, "pods", "/api/v1");
  for (auto& o : out) o.label_selector = config.selector;
  if (!config.selector_v2.empty()) {
    for (ReflectorOptions& o : ReflectorOptionsPerNamespace(config, "pods", "/api/v1")) {
      o.label_selector = config.selector_v2;
      o.name = "pods-v2" + o.name.substr(4);  // "pods[/<ns>]" -> "pods-v2[/<ns>]"
      out.push_back(std::move(o));
    }
  }
  for (auto& o : out) o.skip_fields = PodSkippedFields();
  return out;
}

uint8_t PodSourceTag(const ReflectorOptions& options) {
  return options.name.rfind("pods-v2", 0) == 0 ? 1 : 0;
}

}  // namespace podwait
