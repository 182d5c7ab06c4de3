#include "exporter/explain/inputs.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "exporter/classify/ca_status.h"
#include "exporter/common/file.h"
#include "exporter/common/json.h"
#include "exporter/explain/yaml_json.h"
#include "exporter/pd/prober.h"
#include "exporter/sources/ca_status_source.h"
#include "exporter/sources/configmap.h"
#include "exporter/sources/dmcluster.h"
#include "exporter/sources/events.h"
#include "exporter/sources/nodeclaims.h"
#include "exporter/sources/pods.h"
#include "exporter/sources/provisioning_requests.h"
#include "exporter/sources/tidbcluster.h"
#include "exporter/sources/v2_objects.h"

namespace podwait {
namespace {

// Serves PD answers from files (ProbePdFromFiles).
class FileHttpClient final : public HttpClient {
 public:
  HttpResponse Get(const HttpRequest& request, size_t) override {
    HttpResponse r;
    // url = file://<dir>/<namespace>/<cluster>/pd/api/v1/<endpoint path>
    std::string url = request.url;
    const std::string scheme = "file://";
    if (url.rfind(scheme, 0) == 0) url = url.substr(scheme.size());
    const std::string marker = "/pd/api/v1/";
    auto pos = url.find(marker);
    if (pos == std::string::npos) {
      r.error = "Couldn't connect to server";
      return r;
    }
    std::string endpoint = url.substr(pos + marker.size());
    std::replace(endpoint.begin(), endpoint.end(), '/', '_');
    Result<std::string> body = ReadWholeFile(url.substr(0, pos) + "/" + endpoint + ".json");
    if (!body.ok()) {
      r.error = "Couldn't connect to server";
      return r;
    }
    r.body = std::move(*body);
    r.status = 200;
    if (r.body.rfind("HTTP ", 0) == 0) {
      auto nl = r.body.find('\n');
      r.status = std::atoi(r.body.substr(5, nl).c_str());
      r.body = nl == std::string::npos ? std::string() : r.body.substr(nl + 1);
    }
    r.content_type = "application/json";
    return r;
  }
  HttpResponse Stream(const HttpRequest& request,
                      const std::function<bool(std::string_view)>& on_data) override {
    HttpResponse r = Get(request, 0);
    if (r.ok()) on_data(r.body);
    return r;
  }
};

// The largest dump explain reads (kubectl get pods -o json of ~15,000 pods); parsing takes a few
// times its size in memory, so a larger one would end in bad_alloc.
constexpr size_t kMaxInputBytes = size_t{256} << 20;
constexpr const char* kSmaller = "; dump fewer objects (one namespace, a selector)";

std::string Display(const std::string& file) { return file == "-" ? "standard input" : file; }

Result<std::string> ReadInput(const std::string& path, std::istream& in) {
  if (path == "-") {
    Result<std::string> text = ReadStreamLimited(in, kMaxInputBytes);
    if (!text.ok()) text.error = "standard input: " + text.error + kSmaller;
    return text;
  }
  Result<std::string> text = ReadFileLimited(path, kMaxInputBytes);
  if (!text.ok()) {
    text.error = text.error.rfind("larger than", 0) == 0
                     ? path + ": " + text.error + kSmaller
                     : path + ": cannot open the file (" + text.error + ")";
  }
  return text;
}

// One file's documents: a JSON document, or the YAML stream's documents as a JSON array.
struct Documents {
  std::unique_ptr<rapidjson::Document> doc = std::make_unique<rapidjson::Document>();
  std::vector<const rapidjson::Value*> roots;
};

Result<Documents> ParseDocuments(const std::string& name, const std::string& text) {
  using R = Result<Documents>;
  Documents d;
  if (LooksLikeJson(text)) {
    if (std::string e = json::ParseInto(text, d.doc.get()); !e.empty()) {
      return R::Fail(name + ": " + e + " (expected the output of kubectl get ... -o json)");
    }
    if (!d.doc->IsObject()) return R::Fail(name + ": expected a JSON object (a List or an object)");
    d.roots.push_back(d.doc.get());
    return R::Ok(std::move(d));
  }
  if (std::string e = ParseYamlDocuments(text, d.doc.get()); !e.empty()) {
    return R::Fail(name + ": " + e +
                   " (expected the output of kubectl get ... -o json or -o yaml)");
  }
  for (size_t i = 0; i < d.doc->Size(); ++i) {
    const rapidjson::Value& root = (*d.doc)[static_cast<rapidjson::SizeType>(i)];
    if (!root.IsObject()) {
      return R::Fail(name + ": YAML document " + std::to_string(i + 1) +
                     " is not a mapping (expected a List or an object)");
    }
    d.roots.push_back(&root);
  }
  return R::Ok(std::move(d));
}

std::map<std::string, std::string> Labels(const rapidjson::Value& object) {
  std::map<std::string, std::string> labels;
  const rapidjson::Value* meta = json::Member(object, "metadata");
  const rapidjson::Value* l = meta ? json::Member(*meta, "labels") : nullptr;
  if (l == nullptr || !l->IsObject()) return labels;
  for (const auto& m : l->GetObject()) {
    if (m.value.IsString()) labels[m.name.GetString()] = m.value.GetString();
  }
  return labels;
}

// Objects routed by kind, as the reflectors would have stored them.
class Router {
 public:
  Router(const Config& config, const Selector& selector)
      : config_(config), selector_(selector), pod_options_(PodParseOptions::FromConfig(config)) {}

  // Adds one object; `kind` is its kind (or the one its List implies). "" or the error.
  std::string Add(const rapidjson::Value& item, const std::string& kind) {
    const size_t before = read_;
    std::string error = Route(item, kind);
    if (read_ > before) ++kinds_read_[kind.empty() ? std::string(json::Str(&item, "kind")) : kind];
    return error;
  }

  // Objects read, by kind ("Pod" 3, "Event" 12).
  const std::map<std::string, size_t>& kinds_read() const { return kinds_read_; }

 private:
  std::string Route(const rapidjson::Value& item, const std::string& kind) {
    if (json::Str(&item, "apiVersion") == v2::kApiVersion) {
      AddV2Object(item, &v2_);
      ++read_;
      return "";
    }
    if (kind == "Pod") return AddPod(item);
    if (kind == "Event") {
      // A launch failure Karpenter reported on a NodeClaim before deleting it.
      if (std::optional<NodeClaimFailure> f = ParseNodeClaimFailure(item)) {
        nodeclaim_failures_.push_back(std::move(*f));
        ++read_;
        return "";
      }
      Result<ParsedEvent> e = ParseEvent(item);
      if (!e.ok()) return e.error;
      if (e->relevant) events_.push_back(std::move(e->event));
      ++read_;
      return "";
    }
    if (kind == "TidbCluster") {
      TidbClusterParse tc = ParseTidbCluster(item);
      if (!tc.value) return tc.error;
      tidbclusters_.push_back(std::move(*tc.value));
      ++read_;
      return "";
    }
    if (kind == "DMCluster") {
      DmClusterParse dc = ParseDmCluster(item);
      if (!dc.value) return dc.error;
      dmclusters_.push_back(std::move(*dc.value));
      ++read_;
      return "";
    }
    if (kind == "ConfigMap" && IsCaStatus(item)) return AddCaStatus(item);
    if (kind == "NodeClaim") return Keep(ParseNodeClaim(item), &nodeclaims_, kind);
    if (kind == "ProvisioningRequest") {
      return Keep(ParseProvisioningRequest(item), &provisioning_requests_, kind);
    }
    ++inputs_.skipped[kind.empty() ? "<no kind>" : kind];
    return "";
  }

 public:
  // Keeps one parsed object of a kind whose presence is news (ListedKind). "" or the error.
  template <typename T>
  std::string Keep(Result<T> parsed, std::vector<T>* into, std::string_view kind) {
    if (!parsed.ok()) return parsed.error;
    into->push_back(std::move(*parsed));
    ListedKind(kind);
    ++read_;
    return "";
  }

  // A List of `kind` was read, even an empty one: a dump of `kubectl get nodeclaims` that lists
  // none says none exist (a nomination to one is then gone), unlike a dump without them.
  void ListedKind(std::string_view kind) {
    if (kind == "NodeClaim") nodeclaims_listed_ = true;
    if (kind == "ProvisioningRequest") provisioning_requests_listed_ = true;
  }

  // Into the pipeline; an error names the first malformed v2 object.
  Result<FileInputs> Finish(Pipeline& pipeline) {
    if (!v2_.errors.empty()) return Result<FileInputs>::Fail(v2_.errors.front());
    pipeline.pods().Replace(pods_);
    pipeline.events().Replace(std::move(events_));
    if (ca_status_) pipeline.SetCaStatus({true, std::move(ca_status_)});
    if (!tidbclusters_.empty()) pipeline.tidbclusters().Replace("", tidbclusters_);
    if (!dmclusters_.empty()) pipeline.dmclusters().Replace("", dmclusters_);
    if (nodeclaims_listed_) pipeline.nodeclaims().Replace(std::move(nodeclaims_));
    if (!nodeclaim_failures_.empty()) {
      pipeline.nodeclaims().ReplaceFailures(std::move(nodeclaim_failures_));
    }
    if (provisioning_requests_listed_) {
      pipeline.provisioning_requests().Replace("", std::move(provisioning_requests_));
    }
    for (auto& c : v2_.clusters) pipeline.v2().UpsertCluster(std::move(c));
    for (auto& g : v2_.groups) pipeline.v2().UpsertGroup(std::move(g));
    for (auto& i : v2_.instances) pipeline.v2().UpsertInstance(std::move(i));
    pipeline.DiscoverClusters();
    return Result<FileInputs>::Ok(std::move(inputs_));
  }

  size_t objects_read() const { return read_; }
  void NameV2Errors(const std::string& file, size_t from) {
    for (size_t i = from; i < v2_.errors.size(); ++i) v2_.errors[i] = file + ": " + v2_.errors[i];
  }
  size_t v2_errors() const { return v2_.errors.size(); }

 private:
  std::string AddPod(const rapidjson::Value& item) {
    Result<PodRecord> p = ParsePod(item, pod_options_);
    if (!p.ok()) return p.error;
    if (selector_.Matches(Labels(item))) inputs_.selected.insert({p->namespace_, p->name});
    pods_.push_back(std::make_shared<const PodRecord>(std::move(*p)));
    ++read_;
    return "";
  }

  bool IsCaStatus(const rapidjson::Value& item) const {
    const rapidjson::Value* meta = json::Member(item, "metadata");
    return json::Str(meta, "name") == config_.ca_status_name &&
           json::Str(meta, "namespace") == config_.ca_status_namespace;
  }

  std::string AddCaStatus(const rapidjson::Value& item) {
    auto data = ParseConfigMapData(item);
    if (!data || data->count("status") == 0) {
      return "the cluster-autoscaler status ConfigMap has no \"status\" key";
    }
    Result<CaStatus> status = ParseCaStatusData(*data);
    if (!status.ok()) return status.error;
    ca_status_ = std::make_shared<const CaStatus>(std::move(*status.value));
    ++read_;
    return "";
  }

  const Config& config_;
  const Selector& selector_;
  const PodParseOptions pod_options_;
  FileInputs inputs_;
  size_t read_ = 0;
  std::map<std::string, size_t> kinds_read_;
  std::vector<PodPtr> pods_;
  std::vector<EventRecord> events_;
  std::vector<TidbClusterStatus> tidbclusters_;
  std::vector<DmClusterStatus> dmclusters_;
  V2Objects v2_;
  std::shared_ptr<const CaStatus> ca_status_;
  std::vector<NodeClaimFacts> nodeclaims_;
  std::vector<NodeClaimFailure> nodeclaim_failures_;
  std::vector<ProvisioningRequestFacts> provisioning_requests_;
  bool nodeclaims_listed_ = false;
  bool provisioning_requests_listed_ = false;
};

// "PodList" -> "Pod"; "List" (kubectl's mixed list) -> "".
std::string ItemKindOfList(std::string_view list_kind) {
  constexpr std::string_view suffix = "List";
  if (list_kind.size() > suffix.size() && list_kind.ends_with(suffix)) {
    return std::string(list_kind.substr(0, list_kind.size() - suffix.size()));
  }
  return "";
}

// The objects of one document (a List's items, or the object itself) into `router`.
std::string RouteDocument(const rapidjson::Value& root, const std::string& where, Router& router) {
  const rapidjson::Value* list = json::Member(root, "items");
  if (list == nullptr) {
    const std::string kind(json::Str(&root, "kind"));
    std::string e = router.Add(root, kind);
    return e.empty() ? "" : where + ": " + e;
  }
  if (!list->IsArray()) return where + ": \"items\" is not an array";
  // Items without a kind (a list as the API server sends it) take the List's; kubectl's own
  // items always have one. Without either, a Pod (a dump of kubectl get pods).
  std::string implied = ItemKindOfList(json::Str(&root, "kind"));
  if (implied.empty()) implied = "Pod";
  router.ListedKind(implied);
  for (size_t i = 0; i < list->Size(); ++i) {
    if (!(*list)[static_cast<rapidjson::SizeType>(i)].IsObject()) {
      return where + ": item " + std::to_string(i) + " is not a JSON object";
    }
  }
  for (size_t i = 0; i < list->Size(); ++i) {
    const rapidjson::Value& item = (*list)[static_cast<rapidjson::SizeType>(i)];
    const std::string at = where + ": item " + std::to_string(i);
    const std::string kind(json::Str(&item, "kind"));
    if (std::string e = router.Add(item, kind.empty() ? implied : kind); !e.empty()) {
      return at + ": " + e;
    }
  }
  return "";
}

}  // namespace

Result<FileInputs> LoadFiles(const std::vector<std::string>& files, std::istream& in,
                             const Config& config, const Selector& selector, Pipeline& pipeline) {
  using R = Result<FileInputs>;
  Router router(config, selector);
  size_t objects = 0;
  for (const std::string& file : files) {
    const std::string name = Display(file);
    Result<std::string> text = ReadInput(file, in);
    if (!text.ok()) return R::Fail(text.error);
    if (text.value->find_first_not_of(" \t\r\n") == std::string::npos) {
      return R::Fail(name + (text.value->empty() ? " is empty" : " holds only white space") +
                     (file == "-" ? ": did the command writing into the pipe fail?" : "") +
                     " (no pods read, so nothing to explain; that is no all-clear)");
    }
    Result<Documents> docs = ParseDocuments(name, *text.value);
    if (!docs.ok()) return R::Fail(docs.error);
    const size_t v2_errors = router.v2_errors();
    for (size_t d = 0; d < docs.value->roots.size(); ++d) {
      const std::string where =
          docs.value->roots.size() == 1 ? name : name + ": document " + std::to_string(d + 1);
      const rapidjson::Value& root = *docs.value->roots[d];
      const rapidjson::Value* items = json::Member(root, "items");
      objects += items != nullptr && items->IsArray() ? items->Size() : 1;
      if (std::string e = RouteDocument(root, where, router); !e.empty()) return R::Fail(e);
    }
    router.NameV2Errors(name, v2_errors);
  }
  Result<FileInputs> loaded = router.Finish(pipeline);
  if (!loaded.ok()) return loaded;
  if (router.objects_read() == 0) {
    std::string kinds;
    for (const auto& [kind, n] : loaded.value->skipped) {
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
    }
    return R::Fail(objects == 0
                       ? "no objects in the input: an empty List (kubectl found nothing to "
                         "dump?); no pods read, so nothing to explain, which is no all-clear"
                       : "no Pod, Event, TidbCluster, tidb-operator v2 object or "
                         "cluster-autoscaler status in the input, only " +
                             kinds + " (expected kubectl get pods,events -o json or -o yaml)");
  }
  if (router.kinds_read().count("Pod") == 0) {
    std::string kinds;
    for (const auto& [kind, n] : router.kinds_read()) {
      kinds += (kinds.empty() ? "" : ", ") + kind + " " + std::to_string(n);
    }
    return R::Fail("no pods in the input, only " + kinds +
                   ": nothing to explain, which is no all-clear (dump the pods too: kubectl get "
                   "pods,events -o json)");
  }
  return loaded;
}

Result<bool> ProbePdFromFiles(const std::string& dir, Timestamp now, Pipeline& pipeline) {
  if (!std::filesystem::is_directory(dir)) return Result<bool>::Fail(dir + ": not a directory");
  FileHttpClient files;
  for (const ClusterKey& key : pipeline.registry().Clusters()) {
    PdClientOptions options;
    options.base_url = "file://" + dir + "/" + key.namespace_ + "/" + key.name;
    PdClient client(files, options);
    pipeline.dependencies().OnPdProbe(key, ProbePd(client, now));
  }
  return Result<bool>::Ok(true);
}

}  // namespace podwait
