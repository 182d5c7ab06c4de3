#include "exporter/metrics/contract_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "exporter/metrics/contract.h"
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
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace podwait
