// The cluster-autoscaler status ConfigMap parser (exporter/classify/ca_status.h) on both formats,
// and autoscaler detection (exporter/classify/autoscaler.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "exporter/classify/autoscaler.h"
#include "exporter/classify/ca_status.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

::testing::Matcher<const NodeGroupStatus&> Group(const std::string& name, bool in_progress,
                                                 bool backoff, const std::string& why = "") {
  return AllOf(Field("name", &NodeGroupStatus::name, name),
               Field("scale_up_in_progress", &NodeGroupStatus::scale_up_in_progress, in_progress),
               Field("backoff", &NodeGroupStatus::backoff, backoff),
               Field("backoff_code", &NodeGroupStatus::backoff_code, why));
}

// The old text format, as cluster-autoscaler's own clusterstate test writes it (tab-indented,
// LastProbeTime/LastTransitionTime continuation lines); the second group is put in Backoff after
// the "ScaleUp: Backoff (ready=1 cloudProviderTarget=3)" line of a public status reader's test.
constexpr std::string_view kTextStatus = R"(
Cluster-autoscaler status at 2020-11-25 08:19:44.090873082 +0000 UTC:
Cluster-wide:
	Health:      Healthy (ready=4 unready=2 notStarted=1 longNotStarted=0 registered=5 longUnregistered=5)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 07:46:04.409158551 +0000 UTC m=+10.341802256
	ScaleUp:     InProgress (ready=4 registered=5)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 08:18:33.613103712 +0000 UTC m=+1959.545747280
	ScaleDown:   CandidatesPresent (candidates=1)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 08:19:34.073648791 +0000 UTC m=+2020.006292413

NodeGroups:
	Name:        foo
	Health:      Healthy (ready=1 unready=2 notStarted=3 longNotStarted=0 registered=5 longUnregistered=6 cloudProviderTarget=2 (minSize=1, maxSize=3))
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 07:46:04.409158551 +0000 UTC m=+10.341802256
	ScaleUp:     InProgress (ready=1 cloudProviderTarget=2)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 08:18:33.613103712 +0000 UTC m=+1959.545747280
	ScaleDown:   CandidatesPresent (candidates=1)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
								LastTransitionTime: 2020-11-25 08:19:34.073648791 +0000 UTC m=+2020.006292413

	Name:        https://content.googleapis.com/compute/v1/projects/p/zones/us-east1-b/instanceGroups/mig-a
	Health:      Healthy (ready=1 unready=0 notStarted=0 longNotStarted=0 registered=1 longUnregistered=0 cloudProviderTarget=3 (minSize=0, maxSize=5))
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
	ScaleUp:     Backoff (ready=1 cloudProviderTarget=3)
								LastProbeTime:      2020-11-25 08:19:44.088071148 +0000 UTC m=+2030.020714775
	ScaleDown:   NoCandidates (candidates=0)
)";

// The YAML format of CA >= 1.30 (clusterstate/api ClusterAutoscalerStatus), as CA's own
// clusterstate test writes it, with a third group in Backoff carrying backoffInfo (errorCode /
// errorMessage) as public readers of the ConfigMap see it.
constexpr std::string_view kYamlStatus = R"(
time: 2020-11-25 08:19:44.090873082 +0000 UTC
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
    nodeCounts:
      registered:
        total: 5
        ready: 4
        notStarted: 1
        unready:
          total: 2
          resourceUnready: 0
      longUnregistered: 5
      unregistered: 6
    lastProbeTime: "2020-11-25T08:19:44.088071148Z"
    lastTransitionTime: "2020-11-25T07:46:04.409158551Z"
  scaleUp:
    status: InProgress
    lastProbeTime: "2020-11-25T08:19:44.088071148Z"
    lastTransitionTime: "2020-11-25T08:18:33.613103712Z"
  scaleDown:
    status: CandidatesPresent
    candidates: 1
nodeGroups:
- name: foo
  health:
    status: Healthy
    cloudProviderTarget: 2
    minSize: 1
    maxSize: 3
  scaleUp:
    status: InProgress
    lastProbeTime: "2020-11-25T08:19:44.088071148Z"
    lastTransitionTime: "2020-11-25T08:18:33.613103712Z"
  scaleDown:
    status: CandidatesPresent
    candidates: 1
- name: bar
  health:
    status: Healthy
  scaleUp:
    status: NoActivity
- name: mig-a
  health:
    status: Unhealthy
    cloudProviderTarget: 3
    minSize: 0
    maxSize: 5
  scaleUp:
    status: Backoff
    backoffInfo:
      errorCode: QUOTA_EXCEEDED
      errorMessage: Instance creation failed due to quota
)";

TEST(CaStatus, TextFormat) {
  CaStatusParse p = ParseCaStatus(kTextStatus);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->format, CaStatus::Format::kText);
  EXPECT_EQ(p.value->cluster_scale_up, "InProgress");
  EXPECT_THAT(p.value->node_groups,
              ElementsAre(Group("foo", true, false),
                          Group("https://content.googleapis.com/compute/v1/projects/p/zones/"
                                "us-east1-b/instanceGroups/mig-a",
                                false, true)));
}

// When CA wrote its status: the probe time of either format, read so that a status that stops
// moving can be told apart from a quiet one (the silent autoscaler).
TEST(CaStatus, ProbeTimeOfBothFormats) {
  const Timestamp probed = ParseRfc3339("2020-11-25T08:19:44.088Z").value();
  CaStatusParse yaml = ParseCaStatus(kYamlStatus);
  ASSERT_TRUE(yaml.ok()) << yaml.error;
  EXPECT_EQ(yaml.value->probe_time, probed);  // clusterWide.health.lastProbeTime
  CaStatusParse text = ParseCaStatus(kTextStatus);
  ASSERT_TRUE(text.ok()) << text.error;
  EXPECT_EQ(text.value->probe_time, ParseRfc3339("2020-11-25T08:19:44.090Z").value());
  // Without clusterWide.health.lastProbeTime, the top-level time.
  CaStatusParse top = ParseCaStatus(
      "time: 2025-06-03 09:12:31.447918391 +0000 UTC m=+3600.1\nautoscalerStatus: Running\n");
  ASSERT_TRUE(top.ok()) << top.error;
  EXPECT_EQ(top.value->probe_time, ParseRfc3339("2025-06-03T09:12:31.447Z").value());
  AutoscalerState state;
  ApplyCaStatus(*yaml.value, &state);
  EXPECT_EQ(state.ca_status_time, probed);
}

TEST(CaStatus, GoTimes) {
  EXPECT_EQ(ParseGoTime("2025-06-03 09:12:31 +0200 CEST"),
            ParseRfc3339("2025-06-03T07:12:31Z").value());
  EXPECT_EQ(ParseGoTime("2025-06-03T09:12:31Z"), ParseRfc3339("2025-06-03T09:12:31Z").value());
  for (const char* bad : {"", "yesterday", "2025-06-03 09:12:31", "2025-06-03 09:12:31 UTC",
                          "2025-06-03 09:12:31 +00x0 UTC", "2025-13-03 09:12:31 +0000 UTC"}) {
    EXPECT_EQ(ParseGoTime(bad), std::nullopt) << bad;
  }
  // A status without a readable time keeps 0 (never stale).
  CaStatusParse p = ParseCaStatus("time: soon\nautoscalerStatus: Running\n");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->probe_time, 0);
}

TEST(CaStatus, YamlFormat) {
  CaStatusParse p = ParseCaStatus(kYamlStatus);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->format, CaStatus::Format::kYaml);
  EXPECT_EQ(p.value->autoscaler_status, "Running");
  EXPECT_EQ(p.value->cluster_scale_up, "InProgress");
  EXPECT_THAT(p.value->node_groups,
              ElementsAre(Group("foo", true, false), Group("bar", false, false),
                          Group("mig-a", false, true, "QUOTA_EXCEEDED")));
}

TEST(CaStatus, YamlBackoffMessageWithoutCodeAndClusterWideBackoff) {
  // Made up in the YAML format above: a group without errorCode, cluster-wide scale-up Backoff.
  CaStatusParse p = ParseCaStatus(
      "autoscalerStatus: Running\n"
      "clusterWide:\n  scaleUp:\n    status: Backoff\n"
      "nodeGroups:\n- name: eks-tikv-ng\n  scaleUp:\n    status: Backoff\n"
      "    backoffInfo:\n      errorMessage: 'Could not launch On-Demand Instances. "
      "InsufficientInstanceCapacity'\n");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_THAT(p.value->node_groups, ElementsAre(Group("eks-tikv-ng", false, true, "")));
  EXPECT_EQ(p.value->node_groups[0].backoff_message,
            "Could not launch On-Demand Instances. InsufficientInstanceCapacity");
  AutoscalerState state;
  ApplyCaStatus(*p.value, &state);
  EXPECT_TRUE(state.cluster_scale_up_backoff);
  ASSERT_EQ(state.node_groups.size(), 1u);
  EXPECT_TRUE(state.node_groups[0].backoff);
}

TEST(CaStatus, YamlBackoffKeepsCodeAndMessage) {
  CaStatusParse p = ParseCaStatus(kYamlStatus);
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.value->node_groups.size(), 3u);
  EXPECT_EQ(p.value->node_groups[2].backoff_code, "QUOTA_EXCEEDED");
  EXPECT_EQ(p.value->node_groups[2].backoff_message, "Instance creation failed due to quota");
}

// Backoff error codes are label values only through a fixed set; the rest are `other`.
TEST(CaStatus, BackoffReasonIsAFixedSet) {
  EXPECT_EQ(BackoffReason(""), reason::kScaleUpBackoff);
  EXPECT_EQ(BackoffReason("QUOTA_EXCEEDED"), reason::kBackoffQuotaExceeded);
  EXPECT_EQ(BackoffReason("IP_SPACE_EXHAUSTED"), reason::kBackoffIpSpaceExhausted);
  EXPECT_EQ(BackoffReason("PERMISSIONS_ERROR"), reason::kBackoffPermissions);
  EXPECT_EQ(BackoffReason("RESERVATION_CAPACITY_EXCEEDED"), reason::kBackoffReservation);
  EXPECT_EQ(BackoffReason("timeout"), reason::kBackoffTimeout);
  EXPECT_EQ(BackoffReason("apiCallError"), reason::kBackoffCloudProviderError);
  EXPECT_EQ(BackoffReason("quota_exceeded"), reason::kBackoffOther);  // codes are exact
  EXPECT_EQ(BackoffReason("x\n{evil}"), reason::kBackoffOther);
  // The generic code "OutOfResource" (cluster-autoscaler cloudprovider/cloud_provider.go,
  // InstanceErrorClass.String of OutOfResourcesErrorClass) is read by its message: EC2's
  // InsufficientInstanceCapacity error code is a stockout. Made-up messages after EC2's error.
  EXPECT_EQ(BackoffReason("OutOfResource",
                          "InsufficientInstanceCapacity: We currently do not have sufficient "
                          "m5.4xlarge capacity in the Availability Zone you requested"),
            reason::kBackoffStockout);
  EXPECT_EQ(BackoffReason("OutOfResource",
                          "VcpuLimitExceeded: You have requested more vCPU "
                          "capacity than your current vCPU limit"),
            reason::kBackoffQuotaExceeded);
  EXPECT_EQ(BackoffReason("OutOfResource", "something else"), reason::kBackoffOther);
  EXPECT_EQ(BackoffReason("OutOfResource"), reason::kBackoffOther);
  for (std::string_view code : {"", "QUOTA_EXCEEDED", "INSUFFICIENT_CAPACITY", "whatever"}) {
    const ReasonInfo* info = FindReason(BackoffReason(code));
    ASSERT_NE(info, nullptr) << code;
    EXPECT_TRUE(info->classes.Contains(WaitClass::kCapacity)) << code;
  }
}

// A real-shaped status ConfigMap of CA >= 1.30 (tests/fixtures/cluster-autoscaler/, README.md
// there names the source it follows).
TEST(CaStatus, FixtureYamlWithBackoffInfo) {
  YAML::Node cm =
      YAML::LoadFile(std::string(PODWAIT_SOURCE_DIR) +
                     "/tests/fixtures/cluster-autoscaler/status-configmap-backoff.yaml");
  CaStatusParse p = ParseCaStatus(cm["data"]["status"].as<std::string>());
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.value->node_groups.size(), 2u);
  const NodeGroupStatus& g = p.value->node_groups[1];
  EXPECT_EQ(g.name, "eks-tikv-ng-7ac5e5f1");
  EXPECT_TRUE(g.backoff);
  EXPECT_EQ(BackoffReason(g.backoff_code), reason::kBackoffStockout);
  EXPECT_EQ(g.backoff_message, "AWS cannot provision any more instances for this node group");
}

TEST(CaStatus, ApplyCopiesGroupsAndClusterBackoff) {
  CaStatusParse p = ParseCaStatus(kYamlStatus);
  ASSERT_TRUE(p.ok());
  AutoscalerState state;
  state.detected[AutoscalerKind::kClusterAutoscaler] = true;
  ApplyCaStatus(*p.value, &state);
  EXPECT_TRUE(
      state.detected[AutoscalerKind::kClusterAutoscaler]);  // presence is not the parser's business
  EXPECT_FALSE(state.cluster_scale_up_backoff);
  EXPECT_EQ(state.node_groups.size(), 3u);
}

TEST(CaStatus, InitializingWithoutGroups) {
  // A CA that just started writes only its state (seen in public ConfigMap dumps).
  CaStatusParse p = ParseCaStatus(
      "time: 2024-05-02 10:00:00 +0000 UTC\nautoscalerStatus: "
      "Initializing\n");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.value->autoscaler_status, "Initializing");
  EXPECT_THAT(p.value->node_groups, IsEmpty());
}

TEST(CaStatus, BadInputIsAnErrorNeverACrash) {
  EXPECT_THAT(ParseCaStatus("").error, HasSubstr("empty"));
  EXPECT_THAT(ParseCaStatus("hello world").error, HasSubstr("not a mapping"));
  EXPECT_THAT(ParseCaStatus("[1, 2, 3]").error, HasSubstr("not a mapping"));
  EXPECT_THAT(ParseCaStatus("foo: bar").error, HasSubstr("none of"));
  EXPECT_THAT(ParseCaStatus("nodeGroups: 5").error, HasSubstr("not a list"));
  EXPECT_THAT(ParseCaStatus("nodeGroups: [").error, HasSubstr("neither"));
  EXPECT_THAT(ParseCaStatus("autoscalerStatus: Running\n\tbad: tab").error, HasSubstr("neither"));
  // Wrong types inside are skipped, not fatal.
  CaStatusParse odd = ParseCaStatus(
      "autoscalerStatus: [x]\nclusterWide: 3\nnodeGroups:\n- name: [a]\n- 7\n- name: ok\n  "
      "scaleUp: {status: {x: 1}, backoffInfo: [1]}\n");
  ASSERT_TRUE(odd.ok()) << odd.error;
  EXPECT_EQ(odd.value->autoscaler_status, "");
  EXPECT_THAT(odd.value->node_groups, ElementsAre(Group("ok", false, false)));
  // Text format cut short.
  CaStatusParse cut = ParseCaStatus(
      "Cluster-autoscaler status at 2020-11-25:\nNodeGroups:\n  "
      "ScaleUp: Backoff\n  Name:");
  ASSERT_TRUE(cut.ok());
  EXPECT_THAT(cut.value->node_groups, ElementsAre(Group("", false, false)));
}

// ---------------------------------------------------------------------------------------------
// Autoscaler detection

constexpr Timestamp kNow = 1'714'644'000'000;

// The signals: the CA status ConfigMap seen, the last CA event, the last Karpenter event.
AutoscalerSignals Signals(bool ca_status_configmap, Timestamp last_ca, Timestamp last_karpenter) {
  AutoscalerSignals s;
  s.status_object[AutoscalerKind::kClusterAutoscaler] = ca_status_configmap;
  s.last_event[AutoscalerKind::kClusterAutoscaler] = last_ca;
  s.last_event[AutoscalerKind::kKarpenter] = last_karpenter;
  return s;
}

TEST(DetectAutoscaler, ParsesTheFlag) {
  EXPECT_EQ(ParseAutoscalerMode("auto"), AutoscalerMode::kAuto);
  EXPECT_EQ(ParseAutoscalerMode("cluster-autoscaler"),
            AutoscalerMode::Forced(AutoscalerKind::kClusterAutoscaler));
  EXPECT_EQ(ParseAutoscalerMode("karpenter"), AutoscalerMode::Forced(AutoscalerKind::kKarpenter));
  EXPECT_EQ(ParseAutoscalerMode("none"), AutoscalerMode::kNone);
  EXPECT_EQ(ParseAutoscalerMode("Karpenter"), std::nullopt);
  EXPECT_EQ(ParseAutoscalerMode(""), std::nullopt);
}

TEST(DetectAutoscaler, AutoFromConfigMapAndRecentEvents) {
  AutoscalerState s;
  DetectAutoscaler(AutoscalerMode::kAuto, {}, kNow, &s);
  EXPECT_FALSE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kKarpenter]);
  EXPECT_FALSE(s.Any());

  DetectAutoscaler(AutoscalerMode::kAuto, Signals(true, 0, 0), kNow, &s);
  EXPECT_TRUE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kKarpenter]);
  EXPECT_TRUE(s.Any());

  // Events: recent means within the hour, the edge included.
  DetectAutoscaler(AutoscalerMode::kAuto,
                   Signals(false, kNow - kAutoscalerRecent, kNow - kAutoscalerRecent - 1), kNow,
                   &s);
  EXPECT_TRUE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kKarpenter]);
  DetectAutoscaler(AutoscalerMode::kAuto, Signals(false, 0, kNow - 5 * kMinute), kNow, &s);
  EXPECT_FALSE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_TRUE(s.detected[AutoscalerKind::kKarpenter]);
  // A future timestamp (clock skew) counts as recent.
  DetectAutoscaler(AutoscalerMode::kAuto, Signals(false, 0, kNow + kMinute), kNow, &s);
  EXPECT_TRUE(s.detected[AutoscalerKind::kKarpenter]);
  // A custom window.
  DetectAutoscaler(AutoscalerMode::kAuto, Signals(false, kNow - 10 * kMinute, 0), kNow, &s,
                   5 * kMinute);
  EXPECT_FALSE(s.detected[AutoscalerKind::kClusterAutoscaler]);
}

TEST(DetectAutoscaler, ForcedModesIgnoreSignals) {
  AutoscalerSignals all = Signals(true, kNow, kNow);
  AutoscalerState s;
  s.node_groups.push_back({"grp", true, false, "", ""});
  DetectAutoscaler(AutoscalerMode::kNone, all, kNow, &s);
  EXPECT_TRUE(s.forced_none);
  EXPECT_FALSE(s.Any());
  EXPECT_EQ(s.node_groups.size(), 1u);  // left alone
  DetectAutoscaler(AutoscalerMode::Forced(AutoscalerKind::kKarpenter), {}, kNow, &s);
  EXPECT_FALSE(s.forced_none);
  EXPECT_TRUE(s.detected[AutoscalerKind::kKarpenter]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  DetectAutoscaler(AutoscalerMode::Forced(AutoscalerKind::kClusterAutoscaler), {}, kNow, &s);
  EXPECT_TRUE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kKarpenter]);
  EXPECT_TRUE(s.Any());
}

EventRecord Event(std::string reason, std::string source, std::string message) {
  EventRecord e;
  e.reason = std::move(reason);
  e.source = std::move(source);
  e.message = std::move(message);
  return e;
}

TEST(EventAutoscalerKind, ByReasonSourceAndMessage) {
  // Sources as `kubectl describe` shows them in the public examples quoted in
  // classify_messages_test.cpp.
  EXPECT_EQ(EventAutoscalerKind(Event("TriggeredScaleUp", "cluster-autoscaler",
                                      "pod triggered scale-up: [{g 1->2 (max: 3)}]")),
            AutoscalerKind::kClusterAutoscaler);
  EXPECT_EQ(EventAutoscalerKind(Event("NotTriggerScaleUp", "", "pod didn't trigger scale-up:")),
            AutoscalerKind::kClusterAutoscaler);
  EXPECT_EQ(EventAutoscalerKind(
                Event("Nominated", "karpenter", "Pod should schedule on: nodeclaim/default-tn8fg")),
            AutoscalerKind::kKarpenter);
  EXPECT_EQ(EventAutoscalerKind(Event("FailedScheduling", "eks-auto-mode/compute",
                                      "Failed to schedule pod, incompatible with nodepool \"a\"")),
            AutoscalerKind::kKarpenter);
  EXPECT_EQ(EventAutoscalerKind(Event("FailedScheduling", "",
                                      "Failed to schedule pod, all available instance types "
                                      "exceed limits for nodepool \"b\"")),
            AutoscalerKind::kKarpenter);
  EXPECT_EQ(EventAutoscalerKind(Event("FailedScheduling", "default-scheduler",
                                      "0/3 nodes are available: 3 Insufficient cpu.")),
            AutoscalerKind::kNone);
  EXPECT_EQ(EventAutoscalerKind(Event("Scheduled", "default-scheduler", "Successfully assigned")),
            AutoscalerKind::kNone);
}

}  // namespace
}  // namespace podwait
