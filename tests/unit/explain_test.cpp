// `podwait-exporter explain` in-process: the made-up pod documents of tests/fixtures/made-up/
// classify (each following a real fixture, see SOURCES.txt there) and the real PD payloads.

#include "exporter/explain/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exporter/evaluate/pipeline.h"
#include "exporter/explain/yaml_json.h"
#include "exporter/sources/pods.h"
#include "tests/support/process.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Explain(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int code = RunExplain(args, in, out, err);
  return {code, out.str(), err.str()};
}

// A PodList of the made-up documents.
std::string PodList() {
  std::string items;
  for (const char* f :
       {"tidb-init-wait-for-pd.yaml", "tikv-unschedulable.yaml", "tikv-ready.yaml"}) {
    if (!items.empty()) items += ",";
    items += testing::YamlFileToJsonText(std::string("tests/fixtures/made-up/classify/") + f);
  }
  return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + items + "]}";
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::MakeTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// PD answers laid out for --pd-dir (namespace tidb, cluster demo) from the real fixtures.
std::string PdDir(bool with_stores) {
  std::string dir = testing::MakeTempDir();
  std::filesystem::create_directories(dir + "/tidb/demo");
  const std::string real = testing::SourcePath("tests/fixtures/real/pd/");
  for (const char* f : {"health.json", "leader.json", "cluster_status.json"}) {
    std::filesystem::copy_file(real + f, dir + "/tidb/demo/" + f);
  }
  if (with_stores) std::filesystem::copy_file(real + "stores.json", dir + "/tidb/demo/stores.json");
  return dir;
}

TEST(Explain, ClassifiesADumpFromStdin) {
  Result r = Explain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  EXPECT_THAT(r.out, HasSubstr("NAMESPACE"));
  EXPECT_THAT(r.out, HasSubstr("demo-tidb-0"));
  EXPECT_THAT(r.out, HasSubstr("demo-tikv-0"));
  EXPECT_THAT(r.out, Not(HasSubstr("demo-tikv-2"))) << "a Ready pod does not wait";
  // No PD answers and no Ready PD pod: PD is not ready, so TiDB's init wait is a dependency wait.
  EXPECT_THAT(r.out, HasSubstr("dependency"));
}

TEST(Explain, AllListsPodsThatDoNotWait) {
  Result r = Explain({"-f", "-", "--all", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  EXPECT_THAT(r.out, HasSubstr("demo-tikv-2"));
  EXPECT_THAT(r.out, HasSubstr("not waiting"));
}

TEST(Explain, JsonOutputHasTheApiShape) {
  Result r = Explain(
      {"-f", WriteTemp("pods.json", PodList()), "-o", "json", "--now=2024-05-02T10:10:00Z"});
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  ASSERT_TRUE(d["pods"].IsArray());
  EXPECT_EQ(d["pods"].Size(), 2u);
  EXPECT_STREQ(d["pods"][0]["pod"].GetString(), "demo-tidb-0");
}

TEST(Explain, PdAnswersMakeTheDependencyReady) {
  // With real PD payloads (a leader, healthy members, initialized, TiKV stores Up), PD and TiKV
  // are ready: TiDB's init wait is no longer waiting on an unready dependency.
  Result r = Explain(
      {"-f", "-", "--pd-dir", PdDir(true), "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_GE(d["clusters"].Size(), 1u);
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["pd"]["readiness"].GetString(), "ready");
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "ready");
}

TEST(Explain, NotBootstrappedLeavesTikvNotReady) {
  // Leader and health answer; /stores answers PD's HTTP 500 before the first TiKV (the body as
  // tikv/pd's ErrNotBootstrapped writes it, see tests/fixtures/real/pd/SOURCES.txt): PD ready,
  // TiKV not.
  const std::string dir = PdDir(false);
  std::ofstream(dir + "/tidb/demo/stores.json")
      << "HTTP 500\n\"TiKV cluster not bootstrapped, please start TiKV first\"\n";
  Result r =
      Explain({"-f", "-", "--pd-dir", dir, "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["pd"]["readiness"].GetString(), "ready");
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "not_ready");
}

TEST(Explain, UnreachableStoresLeaveTikvUnknown) {
  Result r = Explain(
      {"-f", "-", "--pd-dir", PdDir(false), "-o", "json", "--now=2024-05-02T10:10:00Z"}, PodList());
  ASSERT_EQ(r.code, 1) << r.err;  // demo-tikv-0 is short of capacity
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_STREQ(d["clusters"][0]["dependencies"]["tikv"]["readiness"].GetString(), "unknown");
}

// tidb-operator v2 (tests/fixtures/v2/, made up after the v2 source files its README names):
// pods and a dump of kubectl get clusters,pdgroups,pds,tikvs,tidbs -A -o json, as a separate
// file or in the same List.
std::string FileText(const std::string& relative) {
  std::ifstream f(testing::SourcePath(relative));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string V2PodList(std::vector<std::string> extra_items = {}) {
  std::string items;
  for (const char* f : {"tikv-ready-instance-not-ready.json", "tidb-crashloop-no-pd-leader.json",
                        "pd-running-not-ready-no-leader.json"}) {
    if (!items.empty()) items += ",";
    items += FileText(std::string("tests/fixtures/v2/pods/") + f);
  }
  for (const auto& e : extra_items) items += "," + e;
  return "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + items + "]}";
}

// The TiKV pod is Ready, its TiKV instance (tikv-m3p8zc, Preparing) Ready=False: without the v2
// objects explain cannot know and lists nothing for it; with them it waits, stage starting.
TEST(Explain, V2ObjectsMakeAReadyTikvPodWithItsInstanceNotReadyWait) {
  const std::string now = "--now=2025-03-10T08:10:00Z";
  Result without = Explain({"-f", "-", now, "-o", "wide"}, V2PodList());
  ASSERT_EQ(without.code, 1) << without.err;  // the PD pod is not ready past its grace
  EXPECT_THAT(without.out, Not(HasSubstr("tikv-tikv-m3p8zc")));
  EXPECT_THAT(without.out, HasSubstr("tidb-tidb-h2k9sd"));

  const std::string v2 =
      testing::SourcePath("tests/fixtures/v2/lists/kubectl-get-v2-pd-ready-tikv-preparing.json");
  Result with = Explain({"-f", "-", "--v2-objects=" + v2, now, "-o", "wide"}, V2PodList());
  ASSERT_EQ(with.code, 1) << with.err;
  EXPECT_THAT(with.out, HasSubstr("tikv-tikv-m3p8zc"));
  EXPECT_THAT(with.out, HasSubstr("TiKV instance Ready=False InstanceNotHealthy"));

  // The same objects inside the -f List (a mixed kubectl get pods,clusters,pds,... dump).
  rapidjson::Document list;
  const std::string list_text =
      FileText("tests/fixtures/v2/lists/kubectl-get-v2-pd-ready-tikv-preparing.json");
  list.Parse(list_text.c_str());
  ASSERT_TRUE(list.IsObject());
  std::vector<std::string> items;
  for (const auto& item : list["items"].GetArray()) items.push_back(testing::JsonText(item));
  Result mixed = Explain({"-f", "-", now, "-o", "wide"}, V2PodList(items));
  ASSERT_EQ(mixed.code, 1) << mixed.err;
  EXPECT_THAT(mixed.out, HasSubstr("TiKV instance Ready=False InstanceNotHealthy"));

  // A malformed v2 object is a clear error naming it.
  Result bad = Explain({"-f", "-", now},
                       V2PodList({R"({"apiVersion":"core.pingcap.com/v1alpha1","kind":"TiKV",)"
                                  R"("metadata":{"namespace":"tidb-v2","name":"x"},"status":7})"}));
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("TiKV tidb-v2/x"));
}

// kubectl get pods,events -n tidb -o yaml (tests/fixtures/made-up/explain/SOURCES.txt): one List
// of a pod and its events. The events are evidence for the pod, never rows of their own: with
// cluster-autoscaler's TriggeredScaleUp the unschedulable TiKV pod waits for its node (scale_up,
// expected: exit 0); without it, it is short of capacity (exit 1).
const char* kPodsEventsYaml = "tests/fixtures/made-up/explain/kubectl-get-pods-events-tidb.yaml";
const char* kEventsV1Yaml =
    "tests/fixtures/made-up/explain/kubectl-get-events-events-k8s-io-tidb.yaml";
const char* kNow = "--now=2024-05-02T10:03:00Z";

TEST(Explain, MixedKubectlListReadsEventsAsEvidenceNotPods) {
  Result r = Explain({"-f", testing::SourcePath(kPodsEventsYaml), kNow});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scale_up"));
  EXPECT_THAT(r.out, Not(HasSubstr("17cb6a4"))) << "an event name became a pod row:\n" << r.out;
  EXPECT_THAT(r.err, Not(HasSubstr("skipped")));

  Result without = Explain({"-f",
                            testing::SourcePath("tests/fixtures/made-up/classify/"
                                                "tikv-unschedulable.yaml"),
                            kNow});
  EXPECT_EQ(without.code, 1);
  EXPECT_THAT(without.out, HasSubstr("capacity"));
}

// `kubectl get tidbclusters -o json` with a heterogeneous cluster (tidb-operator v1.6.6
// examples/heterogeneous/: spec.cluster, no spec.pd) beside the cluster it joins, and one across
// Kubernetes with nowhere to ask: explain says where each PD lives and what it reads there (the
// status made up in the shape sources/tidbcluster.cpp parses; a Ready pod, as explain wants pods).
TEST(Explain, SaysWhereAClustersPdLivesWhenItIsNotItsOwn) {
  const std::string list = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "pingcap.com/v1alpha1", "kind": "TidbCluster",
     "metadata": {"name": "basic", "namespace": "tidb"},
     "spec": {"pd": {"replicas": 1}, "tikv": {"replicas": 1}},
     "status": {"pd": {"members": {"basic-pd-0": {"name": "basic-pd-0", "health": true}},
                       "leader": {"name": "basic-pd-0", "health": true}},
                "tikv": {"bootStrapped": true,
                         "stores": {"1": {"id": "1", "podName": "basic-tikv-0", "state": "Up"}}}}},
    {"apiVersion": "pingcap.com/v1alpha1", "kind": "TidbCluster",
     "metadata": {"name": "basic-heterogeneous", "namespace": "tidb"},
     "spec": {"cluster": {"name": "basic"}, "tikv": {"replicas": 1}, "tidb": {"replicas": 1}}},
    {"apiVersion": "pingcap.com/v1alpha1", "kind": "TidbCluster",
     "metadata": {"name": "edge", "namespace": "tidb"},
     "spec": {"acrossK8s": true, "tikv": {"replicas": 1}}},
    )" + testing::YamlFileToJsonText("tests/fixtures/made-up/classify/tikv-ready.yaml") +
                           "]}";
  Result r = Explain({"-f", "-", kNow}, list);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Cluster tidb/basic-heterogeneous: PD of tidb/basic (spec.cluster, "
                               "no spec.pd); pd ready"));
  EXPECT_THAT(r.out, HasSubstr("Cluster tidb/edge: PD in another Kubernetes, no spec.pdAddresses "
                               "to ask; pd unknown (pd_elsewhere)"));
  EXPECT_THAT(r.out, Not(HasSubstr("Cluster tidb/basic:")));  // its own PD: nothing to say
}

// The same events in events.k8s.io/v1's shape, in a second file beside the pod.
TEST(Explain, EventsK8sIoEventsAreEvidenceToo) {
  Result r =
      Explain({"-f", testing::SourcePath("tests/fixtures/made-up/classify/tikv-unschedulable.yaml"),
               "-f", testing::SourcePath(kEventsV1Yaml), kNow, "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("TriggeredScaleUp: pod triggered scale-up"));
}

// Karpenter's and cluster-autoscaler's own objects in the dump, as `kubectl get nodeclaims` and
// `kubectl get provisioningrequests -o json` write them (the fixtures of tests/fixtures/karpenter/
// and tests/fixtures/provisioningrequest/, made up after the sources their READMEs cite), decide
// the unschedulable TiKV pod's reason as they do in the exporter.
std::string PendingTikvWith(const std::string& annotation, const std::string& extra_items) {
  rapidjson::Document pod;
  const std::string text =
      testing::YamlFileToJsonText("tests/fixtures/made-up/classify/tikv-unschedulable.yaml");
  pod.Parse(text.c_str());
  if (!annotation.empty()) {
    auto& a = pod.GetAllocator();
    rapidjson::Value& meta = pod["metadata"];
    if (!meta.HasMember("annotations")) meta.AddMember("annotations", rapidjson::kObjectType, a);
    meta["annotations"].AddMember("autoscaling.x-k8s.io/consume-provisioning-request",
                                  rapidjson::Value(annotation.c_str(), a), a);
  }
  return std::string(R"({"apiVersion":"v1","kind":"List","items":[)") + testing::JsonText(pod) +
         extra_items + "]}";
}

// Karpenter's Nominated event for the pod (tests/fixtures/karpenter/event-nominated.json's shape,
// on this pod and its clock).
constexpr const char* kNominated =
    R"(,{"apiVersion":"v1","kind":"Event","metadata":{"name":"demo-tikv-0.17cb6a4f00000001",)"
    R"("namespace":"tidb"},"involvedObject":{"apiVersion":"v1","kind":"Pod","namespace":"tidb",)"
    R"("name":"demo-tikv-0","uid":"6f1f3c2e-0b5e-4d39-9a57-2d0c7f9a1c01"},"reason":"Nominated",)"
    R"("message":"Pod should schedule on: nodeclaim/default-x9q2w","source":{"component":)"
    R"("karpenter"},"firstTimestamp":"2024-05-02T10:01:00Z","lastTimestamp":)"
    R"("2024-05-02T10:01:00Z","count":1,"type":"Normal","reportingComponent":"karpenter"})";

std::string ListOf(const std::string& kind, const std::vector<std::string>& fixtures) {
  std::string items;
  for (const std::string& f : fixtures) items += (items.empty() ? "" : ",") + FileText(f);
  return "{\"apiVersion\":\"v1\",\"kind\":\"" + kind + "List\",\"items\":[" + items + "]}";
}

TEST(Explain, NodeClaimsAndProvisioningRequestsInTheDumpDecideAsInTheExporter) {
  // Nominated, NodeClaims not in the dump: the nomination stands.
  Result nominated = Explain({"-f", "-", kNow, "-o", "wide"}, PendingTikvWith("", kNominated));
  ASSERT_EQ(nominated.code, 0) << nominated.err;
  EXPECT_THAT(nominated.out, HasSubstr("karpenter_nominated"));

  // With the NodeClaim (Launched, not yet Registered): the node is joining.
  const std::string claims =
      WriteTemp("nodeclaims.json",
                ListOf("NodeClaim", {"tests/fixtures/karpenter/nodeclaim-registering.json"}));
  Result registering =
      Explain({"-f", "-", "-f", claims, kNow, "-o", "wide"}, PendingTikvWith("", kNominated));
  ASSERT_EQ(registering.code, 0) << registering.err;
  EXPECT_THAT(registering.out, HasSubstr("karpenter_registering"));

  // An empty NodeClaimList says none exist: the nominated NodeClaim is gone, and without a
  // reported failure the pod's own messages decide (short of resources: capacity, exit 1).
  const std::string none = WriteTemp("no-nodeclaims.json", ListOf("NodeClaim", {}));
  Result gone =
      Explain({"-f", "-", "-f", none, kNow, "-o", "wide"}, PendingTikvWith("", kNominated));
  EXPECT_EQ(gone.code, 1) << gone.out << gone.err;
  EXPECT_THAT(gone.out, Not(HasSubstr("karpenter_")));
  // ... unless Karpenter reported why on the NodeClaim before deleting it (an Event on it).
  const std::string failure =
      WriteTemp("nodeclaim-events.json",
                ListOf("Event", {"tests/fixtures/karpenter/event-insufficient-capacity.json"}));
  Result failed_launch = Explain({"-f", "-", "-f", none, "-f", failure, kNow, "-o", "wide"},
                                 PendingTikvWith("", kNominated));
  EXPECT_EQ(failed_launch.code, 1) << failed_launch.err;
  EXPECT_THAT(failed_launch.out, HasSubstr("karpenter_insufficient_capacity"));

  // The pod consumes a ProvisioningRequest: accepted is an expected scale-up, failed a shortfall.
  const std::string accepted = WriteTemp(
      "accepted.json", ListOf("ProvisioningRequest", {"tests/fixtures/provisioningrequest/"
                                                      "provisioningrequest-accepted.json"}));
  const std::string failed =
      WriteTemp("failed.json",
                ListOf("ProvisioningRequest",
                       {"tests/fixtures/provisioningrequest/provisioningrequest-failed.json"}));
  auto name_of = [](const std::string& fixture) {
    rapidjson::Document d;
    const std::string text = FileText(fixture);
    d.Parse(text.c_str());
    return std::string(d["metadata"]["name"].GetString());
  };
  const std::string accepted_name =
      name_of("tests/fixtures/provisioningrequest/provisioningrequest-accepted.json");
  const std::string failed_name =
      name_of("tests/fixtures/provisioningrequest/provisioningrequest-failed.json");
  Result waits =
      Explain({"-f", "-", "-f", accepted, kNow, "-o", "wide"}, PendingTikvWith(accepted_name, ""));
  ASSERT_EQ(waits.code, 0) << waits.err;
  EXPECT_THAT(waits.out, HasSubstr("provisioning_request_accepted"));
  Result short_of =
      Explain({"-f", "-", "-f", failed, kNow, "-o", "wide"}, PendingTikvWith(failed_name, ""));
  EXPECT_EQ(short_of.code, 1) << short_of.err;
  EXPECT_THAT(short_of.out, HasSubstr("provisioning_request_failed"));
}

// JSON, YAML and multi-document YAML of the same objects give the same answer.
TEST(Explain, JsonYamlAndMultiDocumentYamlAgree) {
  const std::string json = testing::YamlFileToJsonText(kPodsEventsYaml);
  Result from_yaml = Explain({"-f", testing::SourcePath(kPodsEventsYaml), kNow, "-o", "wide"});
  Result from_json = Explain({"-f", "-", kNow, "-o", "wide"}, json);
  ASSERT_EQ(from_json.code, 0) << from_json.err;
  EXPECT_EQ(from_yaml.out, from_json.out);

  // Each object its own document, as concatenated kubectl get -o yaml outputs.
  std::string multi;
  for (const char* f : {"tests/fixtures/made-up/classify/tikv-unschedulable.yaml",
                        "tests/fixtures/made-up/classify/tidb-init-wait-for-pd.yaml",
                        "tests/fixtures/made-up/classify/tikv-ready.yaml"}) {
    multi += "---\n" + FileText(f);
  }
  Result from_multi = Explain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, multi);
  Result from_list = Explain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, PodList());
  EXPECT_EQ(from_multi.code, 1) << from_multi.err;
  EXPECT_EQ(from_multi.out, from_list.out);
}

// kubectl's habits: -n, -A, -l, --no-headers, -o name|yaml; the EXPECTED column and the summary.
TEST(Explain, KubectlFlagsSelectAndShapeTheOutput) {
  const std::string now = "--now=2024-05-02T10:10:00Z";
  Result table = Explain({"-f", "-", now}, PodList());
  EXPECT_EQ(table.code, 1) << "demo-tikv-0 is short of capacity";
  EXPECT_THAT(table.out, ::testing::StartsWith("NAMESPACE   POD           EXPECTED   CLASS"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("demo-tikv-0 +no +capacity"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex("demo-tidb-0 +yes +dependency"));
  EXPECT_THAT(table.out, HasSubstr("3 pods, 2 waiting: 1 needs attention (capacity 1), 1 expected "
                                   "(dependency 1).\n"));

  Result ns = Explain({"-f", "-", now, "-ntidb"}, PodList());
  EXPECT_THAT(ns.out, ::testing::StartsWith("POD ")) << "one namespace: no NAMESPACE column";
  EXPECT_THAT(ns.out, HasSubstr("3 pods in namespace tidb, 2 waiting"));
  Result other = Explain({"-f", "-", now, "-n=shop"}, PodList());
  EXPECT_EQ(other.code, 0) << "nothing of shop waits";
  EXPECT_EQ(other.out, "No waiting pods among 0 pods in namespace shop.\n");
  EXPECT_EQ(Explain({"-f", "-", now, "-A"}, PodList()).out, table.out);

  Result tidb_only =
      Explain({"-f", "-", now, "-l", "app.kubernetes.io/component in (tidb,pd)"}, PodList());
  EXPECT_EQ(tidb_only.code, 0) << "the TiDB pod waits as designed";
  EXPECT_THAT(tidb_only.out, HasSubstr("demo-tidb-0"));
  EXPECT_THAT(tidb_only.out, Not(HasSubstr("demo-tikv-0")));

  Result bare = Explain({"-f", "-", now, "--no-headers"}, PodList());
  EXPECT_THAT(bare.out, Not(HasSubstr("NAMESPACE")));
  EXPECT_THAT(bare.out, Not(HasSubstr("waiting:")));
  EXPECT_EQ(std::count(bare.out.begin(), bare.out.end(), '\n'), 2);

  Result names = Explain({"-f", "-", now, "-o", "name"}, PodList());
  EXPECT_EQ(names.out, "pod/demo-tidb-0\npod/demo-tikv-0\n");
  EXPECT_EQ(names.code, 1);

  Result yaml =
      Explain({"-f", "-", now, "-o", "yaml", "-l", "app.kubernetes.io/component=tikv"}, PodList());
  rapidjson::Document doc;
  ASSERT_EQ(ParseYamlDocuments(yaml.out, &doc), "") << yaml.out;
  ASSERT_EQ(doc.Size(), 1u);
  ASSERT_TRUE(doc[0]["pods"].IsArray());
  ASSERT_EQ(doc[0]["pods"].Size(), 1u) << yaml.out;
  EXPECT_STREQ(doc[0]["pods"][0]["pod"].GetString(), "demo-tikv-0");
  EXPECT_STREQ(doc[0]["pods"][0]["class"].GetString(), "capacity");
}

// Colour only on a terminal and never with NO_COLOR (no-color.org); the columns stay aligned.
TEST(Explain, ColourOnlyWhenAsked) {
  EXPECT_TRUE(UseColor(true, nullptr));
  EXPECT_TRUE(UseColor(true, ""));
  EXPECT_FALSE(UseColor(true, "1"));
  EXPECT_FALSE(UseColor(false, nullptr));
  ExplainEnvironment env;
  env.color = true;
  std::istringstream in(PodList());
  std::ostringstream out, err;
  RunExplain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, in, out, err, env);
  EXPECT_THAT(out.str(), HasSubstr("\033[31mno\033[0m"));
  EXPECT_THAT(out.str(), HasSubstr("\033[32myes\033[0m"));
  Result plain = Explain({"-f", "-", "--now=2024-05-02T10:10:00Z"}, PodList());
  EXPECT_THAT(plain.out, Not(HasSubstr("\033[")));
}

// The pods of PodList() as records.
std::vector<PodPtr> PodRecords() {
  const std::string pods = PodList();
  rapidjson::Document d;
  d.Parse(pods.c_str());
  std::vector<PodPtr> records;
  for (const auto& item : d["items"].GetArray()) {
    records.push_back(std::make_shared<const PodRecord>(*ParsePod(item, PodParseOptions{})));
  }
  return records;
}

// A live read that hands the pipeline what the test says.
class FakeLiveRead final : public LiveRead {
 public:
  std::optional<PodKeys> Selected() const override { return std::nullopt; }
  void Refresh(Pipeline&) override { ++refreshed; }
  int refreshed = 0;
};

// --live asks the injected reader (main wires the exporter's client): the namespace it chose is
// the table's, and its errors are input errors (exit 2).
TEST(Explain, LiveModeUsesTheReaderAndItsNamespace) {
  ExplainEnvironment env;
  env.live_by_default = true;
  env.program = "kubectl podwait";
  std::vector<std::string> seen_namespaces;
  LiveRequest seen;
  env.live = [&](Config* config, const LiveRequest& request,
                 Pipeline& pipeline) -> podwait::Result<std::unique_ptr<LiveRead>> {
    seen = request;
    if (request.context_namespace) config->namespaces = {"tidb"};
    seen_namespaces = config->namespaces;
    pipeline.pods().Replace(PodRecords());
    return podwait::Result<std::unique_ptr<LiveRead>>::Ok(std::make_unique<FakeLiveRead>());
  };
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(RunExplain({"--now=2024-05-02T10:10:00Z", "--timeout=7s"}, in, out, err, env), 1)
      << err.str();
  EXPECT_TRUE(seen.context_namespace);
  EXPECT_EQ(seen.timeout, 7 * kSecond);
  EXPECT_FALSE(seen.watch);
  EXPECT_THAT(out.str(), ::testing::StartsWith("POD "));
  EXPECT_THAT(out.str(), HasSubstr("in namespace tidb"));

  std::ostringstream out2;
  RunExplain({"-A", "--now=2024-05-02T10:10:00Z"}, in, out2, err, env);
  EXPECT_FALSE(seen.context_namespace);
  EXPECT_TRUE(seen_namespaces.empty());
  EXPECT_THAT(out2.str(), ::testing::StartsWith("NAMESPACE "));

  env.live = [](Config*, const LiveRequest&, Pipeline&) {
    return podwait::Result<std::unique_ptr<LiveRead>>::Fail(
        "cannot reach the API server http://127.0.0.1:1 (--server): connection refused");
  };
  std::ostringstream err2;
  EXPECT_EQ(RunExplain({}, in, out, err2, env), 2);
  EXPECT_THAT(err2.str(), HasSubstr("kubectl podwait: cannot reach the API server"));
}

// kubectl's global options land in the exporter's Config, where the endpoint is resolved from.
TEST(Explain, KubectlGlobalOptionsReachTheReader) {
  ExplainEnvironment env;
  env.live_by_default = true;
  Config got;
  env.live = [&](Config* config, const LiveRequest&, Pipeline& pipeline) {
    got = *config;
    pipeline.pods().Replace(PodRecords());
    return podwait::Result<std::unique_ptr<LiveRead>>::Ok(std::make_unique<FakeLiveRead>());
  };
  std::istringstream in;
  std::ostringstream out, err;
  RunExplain({"-s", "https://10.0.0.1:6443", "--kubeconfig=/k/config", "--context=prod",
              "--cluster=c2", "--user=admin", "--token=made-up", "--certificate-authority=/k/ca",
              "--client-certificate=/k/crt", "--client-key=/k/key", "--insecure-skip-tls-verify",
              "--request-timeout=5", "-A"},
             in, out, err, env);
  EXPECT_EQ(err.str(), "");
  EXPECT_EQ(got.kube_server, "https://10.0.0.1:6443");
  EXPECT_EQ(got.kubeconfig, "/k/config");
  EXPECT_EQ(got.kube_context, "prod");
  EXPECT_EQ(got.kube_cluster, "c2");
  EXPECT_EQ(got.kube_user, "admin");
  EXPECT_EQ(got.kube_token, "made-up");
  EXPECT_EQ(got.kube_ca_file, "/k/ca");
  EXPECT_EQ(got.kube_client_certificate, "/k/crt");
  EXPECT_EQ(got.kube_client_key, "/k/key");
  EXPECT_TRUE(got.kube_insecure_skip_tls_verify);
  EXPECT_EQ(got.kube_request_timeout, 5 * kSecond) << "a plain number is seconds, as kubectl's";
  RunExplain({"-shttps://a:1", "--request-timeout=1m", "-A"}, in, out, err, env);
  EXPECT_EQ(got.kube_server, "https://a:1");
  EXPECT_EQ(got.kube_request_timeout, kMinute);
  std::ostringstream bad;
  EXPECT_EQ(RunExplain({"--request-timeout=soon"}, in, out, bad, env), 2);
  EXPECT_THAT(bad.str(), HasSubstr("flag --request-timeout: expects a duration"));
}

// --help in kubectl's style: Examples, Options and kubectl's global options with their defaults
// after '=', Usage; the plugin leaves out the rows about files.
TEST(Explain, HelpIsInKubectlsStyle) {
  ExplainEnvironment env;
  env.live_by_default = true;
  env.program = "kubectl podwait";
  std::istringstream in;
  std::ostringstream help, err;
  EXPECT_EQ(RunExplain({"--help"}, in, help, err, env), 0);
  const std::string h = help.str();
  EXPECT_THAT(h, HasSubstr("\nExamples:\n  # "));
  EXPECT_THAT(h, HasSubstr("\nOptions:\n    -A, --all-namespaces=false:\n\tIf present,"));
  EXPECT_THAT(h, HasSubstr("    -w, --watch=false:\n\t"));
  EXPECT_THAT(h, HasSubstr("\nKubectl options:\n    --kubeconfig='':\n\t"));
  EXPECT_THAT(h, HasSubstr("    -s, --server='':\n\tThe address and port of the Kubernetes API"));
  EXPECT_THAT(h, HasSubstr("    --request-timeout='0':\n\t"));
  EXPECT_THAT(h, HasSubstr("\nUsage:\n  kubectl podwait [-n NAMESPACE | -A]"));
  EXPECT_THAT(h, HasSubstr("Exit codes: 0"));
  EXPECT_THAT(h, Not(HasSubstr("--filename")));
  EXPECT_THAT(h, Not(HasSubstr("--pd-dir")));
  EXPECT_THAT(h, Not(HasSubstr("(default:")));
  std::ostringstream offline;
  EXPECT_EQ(RunExplain({"--help"}, in, offline, err, ExplainEnvironment{}), 0);
  EXPECT_THAT(offline.str(), HasSubstr("    -f, --filename=[]:\n\t"));
  EXPECT_THAT(offline.str(), HasSubstr("\nUsage:\n  podwait-exporter explain (-f DUMP"));
}

// -w: the first table, then the row of each pod whose verdict changes (and of one that stops
// waiting or goes), until the user stops it: exit 0 whatever waits.
TEST(Explain, WatchPrintsChangedRowsUntilStopped) {
  ExplainEnvironment env;
  env.live_by_default = true;
  Pipeline* live_pipeline = nullptr;
  bool caught = false;
  env.catch_stop = [&] { caught = true; };
  env.live = [&](Config*, const LiveRequest& request, Pipeline& pipeline) {
    EXPECT_TRUE(request.watch);
    EXPECT_TRUE(caught) << "the stop signals are caught before the read";
    live_pipeline = &pipeline;
    pipeline.pods().Replace(PodRecords());
    return podwait::Result<std::unique_ptr<LiveRead>>::Ok(std::make_unique<FakeLiveRead>());
  };
  // Tick 1: nothing changes. Tick 2: demo-tikv-0 is gone and demo-tidb-0 is Ready. Then stop.
  int ticks = 0;
  env.wait_for_stop = [&](Timestamp) {
    ++ticks;
    if (ticks == 2) {
      std::vector<PodPtr> pods;
      for (const PodPtr& p : live_pipeline->pods().Snapshot()) {
        if (p->name == "demo-tikv-0") continue;
        if (p->name == "demo-tidb-0") {
          for (const PodPtr& ready : live_pipeline->pods().Snapshot()) {
            if (ready->name != "demo-tidb-0" && ready->name != "demo-tikv-0") {
              PodRecord copy = *ready;  // the Ready pod, as demo-tidb-0
              copy.name = "demo-tidb-0";
              copy.uid = p->uid;
              copy.component = p->component;
              pods.push_back(std::make_shared<const PodRecord>(std::move(copy)));
            }
          }
          continue;
        }
        pods.push_back(p);
      }
      live_pipeline->pods().Replace(pods);
    }
    return ticks > 2;
  };
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(RunExplain({"-A", "-w"}, in, out, err, env), 0) << err.str();
  const std::string o = out.str();
  EXPECT_THAT(o, ::testing::StartsWith("NAMESPACE "));
  EXPECT_THAT(o, Not(HasSubstr("waiting:"))) << "no summary line under -w";
  EXPECT_THAT(o, ::testing::ContainsRegex("\ntidb +demo-tikv-0 +- +- +deleted +- +-"));
  EXPECT_THAT(o, ::testing::ContainsRegex("\ntidb +demo-tidb-0 +- +- +not waiting"));
  EXPECT_EQ(std::count(o.begin(), o.end(), '\n'), 1 + 2 + 2) << o;
  EXPECT_EQ(ticks, 3);

  std::ostringstream err2;
  EXPECT_EQ(RunExplain({"-w", "-o", "json"}, in, out, err2, env), 2);
  EXPECT_THAT(err2.str(), HasSubstr("-w prints rows"));
  EXPECT_EQ(RunExplain({"-w", "-f", "-"}, in, out, err2, ExplainEnvironment{}), 2);
}

// A kubectl that failed in a pipe leaves explain nothing to read: that is no all-clear (exit 2),
// and neither is a dump without a single pod.
TEST(Explain, EmptyInputIsAnErrorNotAnAllClear) {
  Result nothing = Explain({"-f", "-"}, "");
  EXPECT_EQ(nothing.code, 2);
  EXPECT_EQ(nothing.out, "");
  EXPECT_THAT(nothing.err, HasSubstr("standard input is empty: did the command writing into "
                                     "the pipe fail?"));
  EXPECT_THAT(Explain({"-f", "-"}, "\n  \n").err, HasSubstr("standard input holds only white"));
  Result empty_file = Explain({"-f", WriteTemp("pods.json", "")});
  EXPECT_EQ(empty_file.code, 2);
  EXPECT_THAT(empty_file.err, HasSubstr("pods.json is empty"));

  Result empty_list = Explain({"-f", "-"}, R"({"apiVersion":"v1","kind":"List","items":[]})");
  EXPECT_EQ(empty_list.code, 2);
  EXPECT_THAT(empty_list.err, HasSubstr("an empty List"));

  const std::string event = R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Event",
      "apiVersion":"v1","metadata":{"name":"e","namespace":"tidb"},"reason":"Scheduled",
      "involvedObject":{"kind":"Pod","name":"demo-tidb-0","namespace":"tidb"}}]})";
  Result events_only = Explain({"-f", "-"}, event);
  EXPECT_EQ(events_only.code, 2) << events_only.out;
  EXPECT_THAT(events_only.err, HasSubstr("no pods in the input, only Event 1"));
  EXPECT_THAT(events_only.out, Not(HasSubstr("No waiting pods")));
}

// -f /dev/zero, or a dump larger than memory allows, ended in std::bad_alloc (SIGABRT).
TEST(Explain, HugeInputIsAClearErrorNotAnAbort) {
  Result zero = Explain({"-f", "/dev/zero"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_THAT(zero.err, HasSubstr("/dev/zero: larger than the limit of 256 MiB"));

  // A sparse 4 GiB file: refused by its size, without reading it.
  const std::string huge = testing::MakeTempDir() + "/pods.json";
  ASSERT_EQ(truncate(huge.c_str(), 0), -1);  // not there yet
  { std::ofstream(huge) << "{"; }
  ASSERT_EQ(truncate(huge.c_str(), int64_t{4} << 30), 0);
  Result big = Explain({"-f", huge});
  EXPECT_EQ(big.code, 2);
  EXPECT_THAT(big.err, HasSubstr("larger than the limit of 256 MiB (4096 MiB)"));
  EXPECT_THAT(big.err, HasSubstr("dump fewer objects"));
}

TEST(Explain, BadInputIsAClearErrorNamingTheFile) {
  Result missing = Explain({"-f", "/nonexistent/pods.json"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/pods.json: cannot open the file"));

  Result truncated = Explain({"-f", "-"}, "{\"items\": [");
  EXPECT_EQ(truncated.code, 2);
  EXPECT_THAT(truncated.err, HasSubstr("standard input: invalid JSON at offset"));

  // Objects of kinds explain does not read are skipped and named; with nothing else, an error.
  Result only_services = Explain({"-f", "-"}, "{\"items\": [{\"kind\": \"Service\"}]}");
  EXPECT_EQ(only_services.code, 2);
  EXPECT_THAT(only_services.err, HasSubstr("no Pod, Event"));
  EXPECT_THAT(only_services.err, HasSubstr("only Service 1"));

  Result node = Explain({"-f", "-"}, "{\"kind\": \"Node\"}");
  EXPECT_EQ(node.code, 2);
  EXPECT_THAT(node.err, HasSubstr("no Pod, Event"));

  Result bad_events = Explain({"-f", "-", "--events", WriteTemp("ev.json", "[]")}, PodList());
  EXPECT_EQ(bad_events.code, 2);
  EXPECT_THAT(bad_events.err, HasSubstr("ev.json: expected a JSON object"));

  Result bad_yaml = Explain({"-f", "-"}, "items:\n- kind: Pod\n  metadata: {name: [\n");
  EXPECT_EQ(bad_yaml.code, 2);
  EXPECT_THAT(bad_yaml.err, HasSubstr("standard input: invalid YAML at line"));

  Result scalar_yaml = Explain({"-f", "-"}, "just text\n");
  EXPECT_EQ(scalar_yaml.code, 2);
  EXPECT_THAT(scalar_yaml.err, HasSubstr("YAML document 1 is not a mapping"));
}

// Defect 1: an item that is not an object reached FindMember unchecked (SIGSEGV).
TEST(Explain, ListItemsThatAreNotObjectsAreAClearError) {
  for (const char* items : {"[1]", "[\"pod\"]", "[null]", "[[]]", "[{\"kind\":\"Pod\"}, 2]"}) {
    const std::string text = std::string("{\"items\":") + items + "}";
    Result r = Explain({"-f", "-"}, text);
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_THAT(r.err, HasSubstr("is not a JSON object")) << text;
  }
  for (const char* flag : {"--events", "--tidbclusters", "--ca-status"}) {
    Result r = Explain({"-f", "-", flag, WriteTemp("list.json", "{\"items\":[1]}")}, PodList());
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_THAT(r.err, HasSubstr("item 0 is not a JSON object")) << flag;
  }
}

// Defect 2: a 1,000,000-deep document overflowed the stack of the recursive parser.
TEST(Explain, DeeplyNestedInputIsAClearError) {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  Result r = Explain({"-f", "-"}, "{\"items\":[{\"kind\":\"Pod\",\"x\":" + deep + "}]}");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("standard input: nesting deeper than 64 levels"));
}

TEST(Explain, BadUsageExitsTwo) {
  EXPECT_EQ(Explain({}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "-o", "xml"}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "-n", "a", "-A"}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "-f", "-"}).code, 2);
  EXPECT_EQ(Explain({"-f", "-", "-l", "a in (b"}).code, 2);
  EXPECT_EQ(Explain({"--live"}).code, 2) << "no live reader in this environment";
  EXPECT_EQ(Explain({"-f", "-", "--now=yesterday"}).code, 2);
  Result unknown = Explain({"-f", "-", "--bogus"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown flag --bogus"));
  EXPECT_EQ(Explain({"--help"}).code, 0);
  EXPECT_EQ(Explain({"-f", "-", "-w"}).code, 2) << "-w watches the cluster";
}

}  // namespace
}  // namespace podwait
