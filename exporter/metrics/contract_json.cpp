#include "exporter/metrics/contract_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <span>

#include "exporter/common/label_values.h"
#include "exporter/metrics/contract.h"
#include "exporter/model/autoscalers.h"
#include "exporter/model/topologies.h"
#include "exporter/model/v2.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void String(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void Key(Writer& w, const char* key, std::string_view value) {
  w.Key(key);
  String(w, value);
}
void Strings(Writer& w, const char* key, std::span<const std::string_view> values) {
  w.Key(key);
  w.StartArray();
  for (std::string_view v : values) String(w, v);
  w.EndArray();
}

// The verbs podwait needs: list and watch; get too for one named object (the API server
// authorizes a list or watch with a metadata.name field selector against resourceNames).
void Verbs(Writer& w, bool named) {
  static constexpr std::string_view kNamed[] = {"get", "list", "watch"};
  static constexpr std::string_view kAll[] = {"list", "watch"};
  Strings(
      w, "verbs",
      named ? std::span<const std::string_view>(kNamed) : std::span<const std::string_view>(kAll));
}

// `instance`: for an instance kind, what its component waits for and how it starts.
void V2Kind(Writer& w, std::string_view kind, std::string_view resource, std::string_view component,
            std::string_view role, const v2::Kind* instance = nullptr) {
  w.StartObject();
  Key(w, "kind", kind);
  Key(w, "resource", resource);
  Key(w, "component", component);
  Key(w, "role", role);
  if (instance != nullptr) {
    w.Key("dependencies");
    w.StartArray();
    for (Dependency d : instance->needs) String(w, DependencyName(d));
    w.EndArray();
    Key(w, "startUp", v2::StartUpName(instance->start_up));
  }
  w.EndObject();
}

// tidb-operator v2: every kind podwait lists and watches in the watched namespaces.
void WriteV2(Writer& w) {
  w.Key("v2");
  w.StartObject();
  Key(w, "apiGroup", v2::kApiGroup);
  Key(w, "apiVersion", v2::kApiVersion);
  Verbs(w, false);
  w.Key("kinds");
  w.StartArray();
  V2Kind(w, v2::kClusterKind, v2::kClusterResource, "", "cluster");
  for (const v2::Kind& k : v2::Kinds()) {
    V2Kind(w, k.instance_kind, k.instance_resource, k.component, "instance", &k);
    V2Kind(w, k.group_kind, k.group_resource, k.component, "group");
  }
  w.EndArray();
  w.EndObject();
}

// The volume watch (--volumes.enabled, sources/volumes.h): claims in the watched namespaces,
// volumes cluster-wide (they are cluster-scoped).
void WriteVolumes(Writer& w) {
  w.Key("volumes");
  w.StartObject();
  Key(w, "flag", "volumes.enabled");
  w.Key("resources");
  w.StartArray();
  for (auto [resource, scope] :
       {std::pair<std::string_view, std::string_view>{"persistentvolumeclaims", "namespaced"},
        {"persistentvolumes", "cluster"}}) {
    w.StartObject();
    Key(w, "apiGroup", "");
    Key(w, "resource", resource);
    Key(w, "scope", scope);
    Verbs(w, false);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// The autoscaler table: how podwait tells each one's events and verdicts, what it reads.
void WriteAutoscalers(Writer& w) {
  w.Key("autoscalers");
  w.StartArray();
  for (const AutoscalerInfo& a : kAutoscalers) {
    w.StartObject();
    Key(w, "name", a.name);
    Strings(w, "eventReasons", a.event_reasons);
    Strings(w, "eventSources", a.event_sources);
    Strings(w, "eventSourcePrefixes", a.event_source_prefixes);
    Strings(w, "verdictReasons", a.verdict_reasons);
    Key(w, "verdict", a.verdict);
    w.Key("resources");
    w.StartArray();
    for (const ResourceAccess& r : a.resources) {
      w.StartObject();
      Key(w, "apiGroup", r.group);
      Key(w, "resource", r.resource);
      Key(w, "namespace", r.namespace_);
      Key(w, "name", r.name);
      Verbs(w, !r.name.empty());
      Key(w, "why", r.why);
      w.Key("clusterScoped");
      w.Bool(r.cluster_scoped);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

// --events.write: what podwait writes (the only write it makes), the access it needs in the
// watched namespaces, and the Event reason and type of each class.
void WriteEvents(Writer& w) {
  w.Key("events");
  w.StartObject();
  Key(w, "flag", "events.write");
  Key(w, "apiGroup", "events.k8s.io");
  Key(w, "apiVersion", "events.k8s.io/v1");
  Key(w, "resource", "events");
  static constexpr std::string_view kWriteVerbs[] = {"create", "patch"};
  Strings(w, "verbs", kWriteVerbs);
  Key(w, "reportingController", kEventReportingController);
  w.Key("reasons");
  w.StartArray();
  for (const ClassInfo& c : kClasses) {
    w.StartObject();
    Key(w, "class", c.name);
    Key(w, "reason", EventReason(c.wait_class));
    Key(w, "type", EventType(c.wait_class));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// Each label of `m`: where its values come from and what bounds them.
void WriteLabelSources(Writer& w, const MetricInfo& m) {
  const std::vector<std::string_view> labels = LabelsOf(m);
  w.Key("labelValues");
  w.StartArray();
  for (size_t i = 0; i < labels.size() && i < m.sources.size(); ++i) {
    w.StartObject();
    Key(w, "label", labels[i]);
    Key(w, "from", m.sources[i].from);
    Key(w, "bound", LabelBoundName(m.sources[i].bound));
    Key(w, "boundedBy", m.sources[i].bounded_by);
    w.EndObject();
  }
  w.EndArray();
}

// tidb-operator v1's objects (pingcap.com/v1alpha1): TidbClusters (PD, stores, failover, the PD
// source) and DMClusters (the dm-master state of a v1 dm-worker), listed and watched in the
// watched namespaces while --tidbcluster.enabled (RBAC derives from it, as from v2's kinds).
void WriteV1(Writer& w) {
  w.Key("v1");
  w.StartObject();
  Key(w, "apiGroup", "pingcap.com");
  Key(w, "apiVersion", "pingcap.com/v1alpha1");
  Key(w, "flag", "tidbcluster.enabled");
  w.Key("resources");
  w.StartArray();
  for (const auto& [resource, why] :
       {std::pair<const char*, const char*>{"tidbclusters",
                                            "PD members, stores, failover, where PD lives (spec)"},
        {"dmclusters", "the DM masters a v1 dm-worker waits for (status.master)"}}) {
    w.StartObject();
    Key(w, "resource", resource);
    static constexpr std::string_view kVerbs[] = {"list", "watch"};
    Strings(w, "verbs", kVerbs);
    Key(w, "why", why);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// How each shape of tidb-operator object is treated (model/topologies.h).
void WriteTopologies(Writer& w) {
  w.Key("topologies");
  w.StartArray();
  for (const TopologyInfo& t : Topologies()) {
    w.StartObject();
    Key(w, "name", t.name);
    Key(w, "shape", t.shape);
    Key(w, "source", t.source);
    Key(w, "pdProbe", t.pd_probe);
    Key(w, "dependencies", t.dependencies);
    w.EndObject();
  }
  w.EndArray();
}

// The sets that "mapped" label values are mapped onto (each also takes "other").
void WriteLabelSets(Writer& w) {
  w.Key("components");
  w.StartArray();
  for (const ComponentInfo& c : Components()) String(w, c.name);
  w.EndArray();
  Strings(w, "storeStates", StoreStateLabels());
}

}  // namespace

std::string RenderContractJson() {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("stages");
  w.StartArray();
  for (const StageInfo& s : kStages) {
    w.StartObject();
    Key(w, "name", s.name);
    Key(w, "condition", s.condition);
    Key(w, "stageStart", s.stage_start);
    w.EndObject();
  }
  w.EndArray();
  w.Key("classes");
  w.StartArray();
  for (const ClassInfo& c : kClasses) {
    w.StartObject();
    Key(w, "name", c.name);
    w.Key("expected");
    w.Bool(c.expected);
    w.Key("stages");
    w.StartArray();
    for (const StageInfo& s : kStages) {
      if (c.stages.Contains(s.stage)) String(w, s.name);
    }
    w.EndArray();
    Key(w, "meaning", c.meaning);
    w.EndObject();
  }
  w.EndArray();
  w.Key("reasons");
  w.StartArray();
  for (const ReasonInfo& r : kReasons) {
    w.StartObject();
    Key(w, "name", r.name);
    w.Key("classes");
    w.StartArray();
    for (const ClassInfo& c : kClasses) {
      if (r.classes.Contains(c.wait_class)) String(w, c.name);
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("dependencies");
  w.StartArray();
  for (const DependencyInfo& d : kDependencies) String(w, d.name);
  w.EndArray();
  WriteTopologies(w);
  WriteV1(w);
  w.Key("metrics");
  w.StartArray();
  for (const MetricInfo& m : kMetricFamilies) {
    w.StartObject();
    Key(w, "name", m.name);
    Key(w, "type", m.type);
    Key(w, "help", m.help);
    w.Key("labels");
    w.StartArray();
    for (std::string_view l : LabelsOf(m)) String(w, l);
    w.EndArray();
    WriteLabelSources(w, m);
    w.EndObject();
  }
  w.EndArray();
  WriteLabelSets(w);
  WriteV2(w);
  WriteAutoscalers(w);
  WriteVolumes(w);
  WriteEvents(w);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace podwait
