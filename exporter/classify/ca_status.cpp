#include "exporter/classify/ca_status.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <exception>

#include "exporter/common/time_format.h"

namespace podwait {
namespace {

constexpr size_t kMaxCodeLength = 64;
constexpr size_t kMaxMessageLength = 300;

// Error codes of node group backoffs (backoffInfo.errorCode) and the reason each gives. The
// codes are the cloud providers' InstanceErrorInfo codes (cluster-autoscaler
// cloudprovider/gce/autoscaling_gce_client.go, cloudprovider/aws/auto_scaling_groups.go,
// cloudprovider/azure/azure_scale_set.go) and clusterstate's own FailedScaleUpReason
// (metrics/metrics.go: cloudProviderError, apiCallError, timeout).
struct BackoffCode {
  std::string_view code;
  std::string_view reason;
  bool prefix = false;  // code is a prefix (RESERVATION_NOT_FOUND, RESERVATION_NOT_READY, ...)
};
constexpr BackoffCode kBackoffCodes[] = {
    {"QUOTA_EXCEEDED", reason::kBackoffQuotaExceeded},
    {"QuotaExceeded", reason::kBackoffQuotaExceeded},
    {"LimitExceeded", reason::kBackoffQuotaExceeded},
    {"RESOURCE_POOL_EXHAUSTED", reason::kBackoffStockout},
    {"ZONE_RESOURCE_POOL_EXHAUSTED", reason::kBackoffStockout},
    {"INSUFFICIENT_CAPACITY", reason::kBackoffStockout},
    {"placeholder-cannot-be-fulfilled", reason::kBackoffStockout},
    {"IP_SPACE_EXHAUSTED", reason::kBackoffIpSpaceExhausted},
    {"PERMISSIONS_ERROR", reason::kBackoffPermissions},
    {"INVALID_RESERVATION", reason::kBackoffReservation},
    {"RESERVATION_", reason::kBackoffReservation, true},
    {"timeout", reason::kBackoffTimeout},
    {"cloudProviderError", reason::kBackoffCloudProviderError},
    {"apiCallError", reason::kBackoffCloudProviderError},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The first word of a "Key:   Value (details)" line's value.
std::string FirstWord(std::string_view value) {
  value = Trim(value);
  size_t end = value.find_first_of(" \t(");
  return std::string(value.substr(0, end));
}

void SetScaleUp(NodeGroupStatus* g, std::string_view status) {
  g->scale_up_in_progress = status == "InProgress";
  g->backoff = status == "Backoff";
}

CaStatusParse ParseText(std::string_view text) {
  CaStatus st;
  st.format = CaStatus::Format::kText;
  {
    constexpr std::string_view kHeader = "Cluster-autoscaler status at ";
    std::string_view first = text.substr(0, text.find('\n'));
    if (first.starts_with(kHeader)) {
      first.remove_prefix(kHeader.size());
      if (first.ends_with(':')) first.remove_suffix(1);
      st.probe_time = ParseGoTime(first).value_or(0);
    }
  }
  enum class Section { kHeader, kCluster, kGroups } section = Section::kHeader;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        Trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (line == "Cluster-wide:") {
      section = Section::kCluster;
      continue;
    }
    if (line == "NodeGroups:") {
      section = Section::kGroups;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    if (section == Section::kCluster && key == "ScaleUp") {
      st.cluster_scale_up = FirstWord(value);
    } else if (section == Section::kGroups && key == "Name") {
      NodeGroupStatus g;
      g.name = std::string(Trim(value));
      st.node_groups.push_back(std::move(g));
    } else if (section == Section::kGroups && key == "ScaleUp" && !st.node_groups.empty()) {
      SetScaleUp(&st.node_groups.back(), FirstWord(value));
    }
  }
  CaStatusParse out;
  out.value = std::move(st);
  return out;
}

// yaml-cpp throws on type mismatches and on reading through missing keys; these helpers read
// only what is there and of the expected shape.
YAML::Node Child(const YAML::Node& n, const char* key) {
  if (!n.IsDefined() || !n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return n[key];
}

std::string Scalar(const YAML::Node& n) {
  if (!n.IsDefined() || !n.IsScalar()) return "";
  return n.Scalar();
}

CaStatusParse ParseYaml(std::string_view text) {
  CaStatusParse out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const std::exception& e) {
    out.error = std::string("status is neither the text format nor YAML: ") + e.what();
    return out;
  }
  try {
    if (!root.IsDefined() || !root.IsMap()) {
      out.error = "status YAML is not a mapping";
      return out;
    }
    YAML::Node groups = Child(root, "nodeGroups");
    YAML::Node cluster = Child(root, "clusterWide");
    YAML::Node as = Child(root, "autoscalerStatus");
    if (!groups.IsDefined() && !cluster.IsDefined() && !as.IsDefined()) {
      out.error = "status YAML has none of autoscalerStatus, clusterWide, nodeGroups";
      return out;
    }
    CaStatus st;
    st.format = CaStatus::Format::kYaml;
    st.autoscaler_status = Scalar(as);
    st.cluster_scale_up = Scalar(Child(Child(cluster, "scaleUp"), "status"));
    std::optional<Timestamp> probed =
        ParseGoTime(Scalar(Child(Child(cluster, "health"), "lastProbeTime")));
    if (!probed) probed = ParseGoTime(Scalar(Child(root, "time")));
    st.probe_time = probed.value_or(0);
    if (groups.IsDefined() && groups.IsSequence()) {
      for (const YAML::Node& g : groups) {
        NodeGroupStatus ng;
        ng.name = Scalar(Child(g, "name"));
        if (ng.name.empty()) continue;  // a group without a name cannot be matched to anything
        YAML::Node up = Child(g, "scaleUp");
        SetScaleUp(&ng, Scalar(Child(up, "status")));
        YAML::Node info = Child(up, "backoffInfo");
        ng.backoff_code = Scalar(Child(info, "errorCode"));
        ng.backoff_message = Scalar(Child(info, "errorMessage"));
        if (ng.backoff_code.size() > kMaxCodeLength) ng.backoff_code.resize(kMaxCodeLength);
        if (ng.backoff_message.size() > kMaxMessageLength) {
          ng.backoff_message.resize(kMaxMessageLength);
        }
        st.node_groups.push_back(std::move(ng));
      }
    } else if (groups.IsDefined() && !groups.IsNull()) {
      out.error = "status YAML nodeGroups is not a list";
      return out;
    }
    out.value = std::move(st);
  } catch (const std::exception& e) {
    out.error = std::string("status YAML has an unexpected shape: ") + e.what();
  }
  return out;
}

}  // namespace

std::optional<Timestamp> ParseGoTime(std::string_view text) {
  text = Trim(text);
  if (auto t = ParseRfc3339(text)) return t;
  // "2025-06-03 09:12:31.447918391 +0000 UTC[ m=+12.3]": date, time, numeric zone, zone name.
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const size_t zone = text.find(' ', space + 1);
  if (zone == std::string_view::npos || zone + 5 >= text.size()) return std::nullopt;
  const std::string_view offset = text.substr(zone + 1, 5);  // +0000
  if ((offset[0] != '+' && offset[0] != '-') ||
      offset.find_first_not_of("0123456789", 1) != std::string_view::npos) {
    return std::nullopt;
  }
  std::string rfc(text.substr(0, space));
  rfc += 'T';
  rfc += text.substr(space + 1, zone - space - 1);
  rfc += offset.substr(0, 3);
  rfc += ':';
  rfc += offset.substr(3);
  return ParseRfc3339(rfc);
}

CaStatusParse ParseCaStatus(std::string_view status) {
  std::string_view t = Trim(status);
  if (t.empty()) return CaStatusParse{std::nullopt, "status is empty"};
  if (t.starts_with("Cluster-autoscaler status at")) return ParseText(t);
  return ParseYaml(t);
}

std::string_view BackoffReason(std::string_view code, std::string_view message) {
  if (code.empty()) return reason::kScaleUpBackoff;
  // "OutOfResource" is InstanceErrorClass.String() of OutOfResourcesErrorClass (cluster-autoscaler
  // cloudprovider/cloud_provider.go: "lack of resources (e.g. due to stockout or quota-exceeded
  // situation)"), written as the code by providers that give no code of their own; the message
  // then tells the two apart (EC2's InsufficientInstanceCapacity, GCE's resource pool exhausted).
  if (code == "OutOfResource") {
    std::string l;
    for (char c : message) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view s :
         {"insufficientinstancecapacity", "insufficient capacity", "insufficient_capacity",
          "resource_pool_exhausted", "stockout", "cannot provision any more instances"}) {
      if (l.find(s) != std::string::npos) return reason::kBackoffStockout;
    }
    for (std::string_view q : {"quota", "limitexceeded", "limit exceeded"}) {
      if (l.find(q) != std::string::npos) return reason::kBackoffQuotaExceeded;
    }
    return reason::kBackoffOther;
  }
  for (const BackoffCode& c : kBackoffCodes) {
    if (c.prefix ? code.starts_with(c.code) : code == c.code) return c.reason;
  }
  return reason::kBackoffOther;
}

void ApplyCaStatus(const CaStatus& status, AutoscalerState* state) {
  state->node_groups = status.node_groups;
  state->ca_status_time = status.probe_time;
  state->cluster_scale_up_backoff = status.cluster_scale_up == "Backoff";
}

}  // namespace podwait
