#include "exporter/classify/messages.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <system_error>

#include "exporter/classify/scheduler_filters.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool Contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses the leading digits of `s` (saturating at INT_MAX). Returns the number of characters
// consumed (0: no digits).
size_t LeadingInt(std::string_view s, int* out) {
  size_t n = 0;
  while (n < s.size() && IsDigit(s[n])) ++n;
  if (n == 0) return 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + n, *out);
  if (ec == std::errc::result_out_of_range) *out = std::numeric_limits<int>::max();
  return n;
}

// Whether `s` starts with "<digits> " (a counted reason).
bool StartsWithCount(std::string_view s) {
  int ignored = 0;
  size_t n = LeadingInt(s, &ignored);
  return n > 0 && n < s.size() && s[n] == ' ';
}

// Taint keys that describe the node rather than the pod: nodes going away, broken, cordoned or
// reserved for the control plane. A fresh node of the same group would not carry them.
constexpr std::array<std::string_view, 17> kNodeSpecificTaints = {
    "tobedeletedbyclusterautoscaler",
    "deletioncandidateofclusterautoscaler",
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
    "karpenter.sh/disruption",
    "karpenter.sh/disrupted",
    "karpenter.sh/unregistered",
};

// The key of "{key: value}" / "{key=value:Effect}" in a taint reason, lower-cased; empty if none.
std::string TaintKey(std::string_view lower) {
  size_t open = lower.find('{');
  if (open == std::string_view::npos) return "";
  std::string_view rest = lower.substr(open + 1);
  size_t end = rest.find_first_of(":=}");
  if (end == std::string_view::npos) return "";
  return std::string(Trim(rest.substr(0, end)));
}

FitReason Make(std::string_view reason, FitKind kind, std::string_view text, int count) {
  FitReason r;
  r.reason = reason;
  r.kind = kind;
  r.count = count;
  r.text = std::string(text);
  return r;
}

// Splits a reason list into (count, text) items. Three shapes exist:
//   "2 Insufficient cpu, 3 node(s) had ..."   counts first; a ", " only starts a new item when a
//                                              count follows (so "max cluster cpu, memory limit
//                                              reached" stays one item)
//   "Insufficient cpu (2), MatchNodeSelector (1)"   counts last (scheduler < 1.10)
//   "pod has unbound immediate PersistentVolumeClaims"   one item, no count
std::vector<std::pair<int, std::string_view>> SplitCounted(std::string_view list) {
  std::vector<std::pair<int, std::string_view>> items;
  list = Trim(list);
  if (list.empty()) return items;
  if (StartsWithCount(list)) {
    size_t start = 0;
    size_t pos = 0;
    while (true) {
      size_t comma = list.find(", ", pos);
      bool split = comma != std::string_view::npos && StartsWithCount(list.substr(comma + 2));
      if (comma == std::string_view::npos || split) {
        std::string_view item = Trim(list.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        int count = -1;
        size_t n = LeadingInt(item, &count);
        items.emplace_back(count, Trim(item.substr(n)));
        if (comma == std::string_view::npos) break;
        start = comma + 2;
      }
      pos = comma + 2;
    }
    return items;
  }
  // Counts last: "text (N)".
  if (list.back() == ')' || Contains(list, "), ")) {
    size_t start = 0;
    while (start < list.size()) {
      size_t end = list.find("), ", start);
      std::string_view item = list.substr(
          start, end == std::string_view::npos ? std::string_view::npos : end + 1 - start);
      item = Trim(item);
      int count = -1;
      size_t open = item.rfind(" (");
      if (open != std::string_view::npos && item.back() == ')' &&
          LeadingInt(item.substr(open + 2), &count) > 0) {
        items.emplace_back(count, Trim(item.substr(0, open)));
      } else {
        items.emplace_back(-1, item);
      }
      if (end == std::string_view::npos) break;
      start = end + 3;
    }
    return items;
  }
  items.emplace_back(-1, list);
  return items;
}

// Karpenter's instance type filter failure (InstanceTypeFilterError, karpenter
// pkg/controllers/provisioning/scheduling/nodeclaim.go). Before v1.3 it reads "no instance type
// satisfied resources {..} and requirements .. (<cause>)", the cause in the trailing parenthesis
// (filterResults.FailureReason); since v1.3 the cause leads: "<cause>, requirements=..,
// resources=..". The cause says which criterion excluded every instance type: the scheduling
// requirements (a constraint: no instance type of the pool can ever match, more capacity does not
// help), the resources (the pod is bigger than any instance type) or the offerings (no zone /
// capacity type on offer, Karpenter's unavailable-offerings cache after a stockout). A
// requirements failure wins over the others: alone it excludes every instance type.
FitReason KarpenterInstanceTypes(std::string_view l, std::string_view text, int count) {
  using K = FitKind;
  namespace r = reason;
  std::string_view cause = l.substr(l.rfind("no instance type"));
  if (size_t end = cause.find(", requirements="); end != std::string_view::npos) {
    cause = cause.substr(0, end);
  }
  if (cause.starts_with("no instance type satisfied resources")) {
    // The oldest form, no cause given: the pod's resources did not fit.
    return Make(r::kInsufficientResources, K::kResource, text, count);
  }
  if (Contains(cause, "met the scheduling requirements or") ||
      Contains(cause, "met all requirements") ||
      Contains(cause, "the required offering met the scheduling requirements")) {
    return Make(r::kNodeAffinity, K::kConstraint, text, count);
  }
  if (Contains(cause, "has the required offering") ||
      Contains(cause, "had enough resources, had a required offering")) {
    return Make(r::kKarpenterInsufficientCapacity, K::kResource, text, count);
  }
  // "has enough resources", "had enough resources or had a required offering", "..the required
  // offering had the required resources", "..the requirements/resources/offering tuple".
  return Make(r::kInsufficientResources, K::kResource, text, count);
}

}  // namespace

FitReason NormalizeFitReason(std::string_view text, int count) {
  text = Trim(text);
  if (std::string_view legacy = MessageForLegacyPredicate(text); !legacy.empty()) {
    FitReason r = NormalizeFitReason(legacy, count);
    r.text = std::string(text);
    return r;
  }
  while (!text.empty() && (text.back() == '.' || text.back() == ',')) {
    text.remove_suffix(1);
    text = Trim(text);
  }
  const std::string l = Lower(text);
  using K = FitKind;
  namespace r = reason;

  // The scheduler's VolumeBinding PreBind step gave up on a PVC whose provisioner failed (it
  // removed the claim's volume.kubernetes.io/selected-node annotation): kubernetes
  // pkg/scheduler/framework/plugins/volumebinding/binder.go checkBindings ("provisioning failed
  // for PVC %q", wrapped "binding volumes: %w" by BindPodVolumes and `running PreBind plugin
  // "VolumeBinding": %w` by the framework), a SchedulerError. First: the claim's name is free text.
  if (Contains(l, "provisioning failed for pvc")) {
    return Make(r::kVolumeProvisioningFailed, K::kConstraint, text, count);
  }
  // Autoscaler limits first: "not ready for scale-up" must not read as a not-ready node.
  if (Contains(l, "max node group size") || l == "max limit reached") {
    return Make(r::kMaxNodeGroupSize, K::kLimit, text, count);
  }
  if (Contains(l, "max cluster") || Contains(l, "max total nodes") ||
      Contains(l, "max node total count")) {
    return Make(r::kMaxClusterSize, K::kLimit, text, count);
  }
  // cluster-autoscaler core/scaleup/orchestrator/skippedreasons.go: BackoffReason "in backoff
  // after failed scale-up"; NotReadyReason "not ready for scale-up", returned by
  // IsNodeGroupReadyToScaleUp (orchestrator.go) when clusterstate finds the group unhealthy (too
  // many unready nodes), and when the group's target size or quota cannot be read. Not a backoff.
  if (Contains(l, "not ready for scale-up")) {
    return Make(r::kNodeGroupNotReady, K::kLimit, text, count);
  }
  if (Contains(l, "backoff")) return Make(r::kScaleUpBackoff, K::kLimit, text, count);
  if (Contains(l, "exceed limits")) return Make(r::kNodepoolLimit, K::kLimit, text, count);

  // Resources: a node like this one with room would fit.
  if (l.starts_with("insufficient ")) {
    std::string_view res = Trim(std::string_view(l).substr(13));
    if (res == "cpu") return Make(r::kInsufficientCpu, K::kResource, text, count);
    if (res == "memory") return Make(r::kInsufficientMemory, K::kResource, text, count);
    if (res == "pods") return Make(r::kTooManyPods, K::kResource, text, count);
    return Make(r::kInsufficientResources, K::kResource, text, count);
  }
  if (Contains(l, "too many pods")) return Make(r::kTooManyPods, K::kResource, text, count);
  if (Contains(l, "free ports")) return Make(r::kHostPortConflict, K::kResource, text, count);
  // Dynamic resource allocation (pkg/scheduler/framework/plugins/dynamicresources).
  if (Contains(l, "cannot allocate all claims") || Contains(l, "not available on the node") ||
      Contains(l, "cannot be allocated for the node")) {
    return Make(r::kDraClaimsUnallocatable, K::kResource, text, count);
  }
  if (Contains(l, "resourceclaim") || Contains(l, "resource claim")) {
    if (Contains(l, "being allocated") || Contains(l, "process of being allocated") ||
        Contains(l, "waiting for dynamic resource controller") ||
        Contains(l, "waiting for resource driver")) {
      return Make(r::kDraClaimPending, K::kTransient, text, count);
    }
    if (Contains(l, "not found") || Contains(l, "being deleted")) {
      return Make(r::kDraClaimMissing, K::kConstraint, text, count);
    }
  }
  if (Contains(l, "no instance type")) return KarpenterInstanceTypes(l, text, count);
  // Karpenter pkg/cloudprovider/types.go SatisfiesMinValues: the pool's minValues cannot be met.
  if (Contains(l, "minvalues requirement is not met")) {
    return Make(r::kNodeAffinity, K::kConstraint, text, count);
  }
  if (Contains(l, "max volume count")) {
    return Make(r::kInsufficientResources, K::kResource, text, count);
  }
  if (Contains(l, "no nodes available")) return Make(r::kNoNodes, K::kResource, text, count);

  // Taints: the key decides whether it is about the node or about the pod.
  if (Contains(l, "taint") || Contains(l, "did not tolerate")) {
    std::string key = TaintKey(l);
    if (!key.empty() && std::find(kNodeSpecificTaints.begin(), kNodeSpecificTaints.end(), key) !=
                            kNodeSpecificTaints.end()) {
      return Make(r::kNodesUnavailable, K::kNodeSpecific, text, count);
    }
    return Make(r::kUntoleratedTaint, K::kConstraint, text, count);
  }
  // Node conditions written by older schedulers (and cordoned nodes by all of them).
  if (Contains(l, "unschedulable") || Contains(l, "not ready") || Contains(l, "disk pressure") ||
      Contains(l, "memory pressure") || Contains(l, "pid pressure") ||
      Contains(l, "network unavailable") || Contains(l, "out of disk")) {
    return Make(r::kNodesUnavailable, K::kNodeSpecific, text, count);
  }

  // The pod's own requirements.
  if (Contains(l, "volume node affinity") || Contains(l, "volume zone")) {
    return Make(r::kVolumeNodeAffinity, K::kConstraint, text, count);
  }
  if (Contains(l, "persistentvolumeclaim") || Contains(l, "persistent volumes to bind") ||
      Contains(l, "unbound")) {
    return Make(r::kUnboundPvc, K::kConstraint, text, count);
  }
  if (Contains(l, "anti-affinity") || Contains(l, "antiaffinity")) {
    return Make(r::kPodAntiAffinity, K::kConstraint, text, count);
  }
  if (Contains(l, "node affinity") || Contains(l, "node selector") || Contains(l, "nodeselector") ||
      Contains(l, "node name") || Contains(l, "incompatible requirements") ||
      Contains(l, "does not have known values")) {
    return Make(r::kNodeAffinity, K::kConstraint, text, count);
  }
  if (Contains(l, "pod affinity") || Contains(l, "podaffinity")) {
    return Make(r::kPodAffinity, K::kConstraint, text, count);
  }
  if (Contains(l, "topology spread") || Contains(l, "topology constraint")) {
    return Make(r::kTopologySpread, K::kConstraint, text, count);
  }
  return Make(r::kUnschedulableOther, K::kUnknown, text, count);
}

FitError ParseFitError(std::string_view message) {
  FitError out;
  std::string_view m = Trim(message);
  if (m.empty()) return out;
  if (StartsWithNoCase(m, "no nodes available to schedule pods")) {
    out.total_nodes = 0;
    out.reasons.push_back(NormalizeFitReason(m.substr(0, 35), 0));
    return out;
  }
  std::string_view list;
  constexpr std::string_view kAvail = " nodes are available:";
  constexpr std::string_view kOld = "No nodes are available that match all of the predicates: ";
  // 1.6 and 1.7 (pkg/scheduler/core/generic_scheduler.go): a double colon.
  constexpr std::string_view kOlder =
      "No nodes are available that match all of the following predicates:: ";
  // The header is looked for in the first sentence only: a preemption or plugin-error tail
  // (". preemption: 0/5 nodes are available: ...") is not the list of why nodes did not fit.
  const size_t first_end = m.find(". ");
  size_t avail = m.substr(0, first_end).find(kAvail);
  if (avail != std::string_view::npos) {
    size_t slash = m.substr(0, avail).rfind('/');
    int total = -1;
    if (slash != std::string_view::npos && LeadingInt(m.substr(slash + 1), &total) > 0) {
      out.total_nodes = total;
    }
    list = m.substr(avail + kAvail.size());
  } else if (StartsWithNoCase(m, kOld)) {
    list = m.substr(kOld.size());
  } else if (StartsWithNoCase(m, kOlder)) {
    list = m.substr(kOlder.size());
  } else {
    // Not a FitError (e.g. "persistentvolumeclaim \"x\" not found", a plugin error): one reason.
    out.reasons.push_back(NormalizeFitReason(m, -1));
    return out;
  }
  // The reason list ends at the first sentence end; what follows (". preemption: ...", ". no new
  // claims to deallocate, ...") is about preemption and DRA, not about why nodes did not fit.
  size_t stop = list.find(". ");
  if (stop != std::string_view::npos) list = list.substr(0, stop);
  while (!list.empty() && list.back() == '.') list.remove_suffix(1);
  for (const auto& [count, text] : SplitCounted(list)) {
    // A reason without a count failed in PreFilter, i.e. for every node.
    out.reasons.push_back(NormalizeFitReason(text, count >= 0 ? count : out.total_nodes));
  }
  return out;
}

std::optional<std::vector<ScaleUpGroup>> ParseTriggeredScaleUp(std::string_view message) {
  std::string_view m = Trim(message);
  constexpr std::string_view kOld = "pod triggered scale-up, group: ";
  if (StartsWithNoCase(m, kOld)) {
    // "pod triggered scale-up, group: grp, sizes (current/new): 1/2"
    std::string_view rest = m.substr(kOld.size());
    size_t comma = rest.find(", sizes");
    if (comma == std::string_view::npos) return std::nullopt;
    ScaleUpGroup g;
    g.name = std::string(Trim(rest.substr(0, comma)));
    size_t colon = rest.find("): ", comma);
    if (colon != std::string_view::npos) {
      std::string_view sizes = rest.substr(colon + 3);
      size_t n = LeadingInt(sizes, &g.from);
      if (n > 0 && n < sizes.size() && sizes[n] == '/') LeadingInt(sizes.substr(n + 1), &g.to);
    }
    if (g.name.empty()) return std::nullopt;
    return std::vector<ScaleUpGroup>{g};
  }
  constexpr std::string_view kNew = "pod triggered scale-up: ";
  if (!StartsWithNoCase(m, kNew)) return std::nullopt;
  std::string_view rest = m.substr(kNew.size());
  std::vector<ScaleUpGroup> groups;
  size_t pos = 0;
  while (true) {
    size_t open = rest.find('{', pos);
    if (open == std::string_view::npos) break;
    size_t close = rest.find('}', open);
    if (close == std::string_view::npos) break;
    std::string_view body = Trim(rest.substr(open + 1, close - open - 1));
    pos = close + 1;
    // "<name> <from>-><to> (max: <max>)"
    size_t arrow = body.rfind("->");
    if (arrow == std::string_view::npos) continue;
    size_t sp = body.substr(0, arrow).rfind(' ');
    if (sp == std::string_view::npos) continue;
    ScaleUpGroup g;
    g.name = std::string(Trim(body.substr(0, sp)));
    LeadingInt(body.substr(sp + 1), &g.from);
    LeadingInt(body.substr(arrow + 2), &g.to);
    size_t max = body.find("(max: ", arrow);
    if (max != std::string_view::npos) LeadingInt(body.substr(max + 6), &g.max);
    if (!g.name.empty()) groups.push_back(std::move(g));
  }
  if (groups.empty()) return std::nullopt;
  return groups;
}

std::optional<ScaleUpRefusal> ParseNotTriggerScaleUp(std::string_view message) {
  std::string_view m = Trim(message);
  constexpr std::string_view kPrefix = "pod didn't trigger scale-up";
  if (!StartsWithNoCase(m, kPrefix)) return std::nullopt;
  ScaleUpRefusal out;
  std::string_view rest = m.substr(kPrefix.size());
  constexpr std::string_view kWouldntFit = " (it wouldn't fit if a new node is added)";
  if (rest.starts_with(kWouldntFit)) {
    out.wouldnt_fit = true;
    rest.remove_prefix(kWouldntFit.size());
  }
  if (rest.starts_with(":")) rest.remove_prefix(1);
  rest = Trim(rest);
  while (!rest.empty() && rest.back() == '.') rest.remove_suffix(1);
  for (const auto& [count, text] : SplitCounted(rest)) {
    out.reasons.push_back(NormalizeFitReason(text, count));
  }
  return out;
}

std::optional<KarpenterNomination> ParseKarpenterNominated(std::string_view message) {
  std::string_view m = Trim(message);
  constexpr std::string_view kNew = "Pod should schedule on: ";
  constexpr std::string_view kNode = "Pod should schedule on node: ";
  constexpr std::string_view kMachine = "Pod should schedule on node associated with machine: ";
  KarpenterNomination n;
  if (StartsWithNoCase(m, kNew)) {
    std::string_view ref = Trim(m.substr(kNew.size()));
    size_t slash = ref.find('/');
    if (slash == std::string_view::npos) {
      n.kind = "node";
      n.name = std::string(ref);
    } else {
      n.kind = Lower(ref.substr(0, slash));
      n.name = std::string(ref.substr(slash + 1));
    }
  } else if (StartsWithNoCase(m, kMachine)) {
    n.kind = "machine";
    n.name = std::string(Trim(m.substr(kMachine.size())));
  } else if (StartsWithNoCase(m, kNode)) {
    n.kind = "node";
    n.name = std::string(Trim(m.substr(kNode.size())));
  } else {
    return std::nullopt;
  }
  if (n.name.empty()) return std::nullopt;
  return n;
}

std::optional<std::vector<KarpenterPoolVerdict>> ParseKarpenterFailedScheduling(
    std::string_view message) {
  std::string_view m = Trim(message);
  constexpr std::string_view kPrefix = "Failed to schedule pod,";
  if (!StartsWithNoCase(m, kPrefix)) return std::nullopt;
  std::string_view rest = Trim(m.substr(kPrefix.size()));
  std::vector<KarpenterPoolVerdict> out;
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find("; ", start);
    std::string_view seg = Trim(
        rest.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (!seg.empty()) {
      KarpenterPoolVerdict v;
      // nodepool "name" / provisioner "name" / NodePool="name" / (NodePool=name)
      for (std::string_view key : {"nodepool \"", "provisioner \"", "NodePool=\"", "NodePool="}) {
        size_t at = seg.find(key);
        if (at == std::string_view::npos) continue;
        std::string_view name = seg.substr(at + key.size());
        size_t stop = name.find_first_of("\",) ");
        v.nodepool = std::string(name.substr(0, stop));
        break;
      }
      // The daemonset overhead JSON says nothing about why; drop it before normalizing.
      std::string text(seg);
      size_t ds = text.find("daemonset overhead={");
      if (ds != std::string::npos) {
        size_t close = text.find('}', ds);
        text.erase(ds, close == std::string::npos ? std::string::npos : close + 1 - ds);
      }
      v.reason = NormalizeFitReason(text, -1);
      v.reason.text = std::string(seg);
      out.push_back(std::move(v));
    }
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  return out;
}

const FitReason* DominantReason(const std::vector<FitReason>& reasons, FitKind kind) {
  const FitReason* best = nullptr;
  for (const auto& r : reasons) {
    if (r.kind != kind) continue;
    if (best == nullptr || r.count > best->count) best = &r;
  }
  return best;
}

}  // namespace podwait
