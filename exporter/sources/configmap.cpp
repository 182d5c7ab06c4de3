#include "exporter/sources/configmap.h"

#include "exporter/common/json.h"
#include "exporter/kube/watch_protocol.h"

namespace podwait {

std::optional<std::map<std::string, std::string>> ParseConfigMapData(
    const rapidjson::Value& object) {
  if (!object.IsObject() || json::Object(&object, "metadata") == nullptr) return std::nullopt;
  std::map<std::string, std::string> out;
  const rapidjson::Value* data = json::Member(&object, "data");
  if (data == nullptr || data->IsNull()) return out;
  if (!data->IsObject()) return std::nullopt;
  for (const auto& m : data->GetObject()) {
    if (!m.value.IsString()) continue;
    out.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                std::string(m.value.GetString(), m.value.GetStringLength()));
  }
  return out;
}

ConfigMapSource::ConfigMapSource(std::string name) : name_(std::move(name)) {}

ConfigMapData ConfigMapSource::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

uint64_t ConfigMapSource::Version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.version;
}

bool ConfigMapSource::Read(const rapidjson::Value& object, ConfigMapData* out) const {
  auto data = ParseConfigMapData(object);
  if (!data) return false;
  out->present = true;
  out->data = std::move(*data);
  out->resource_version = std::string(ObjectResourceVersion(object));
  return true;
}

void ConfigMapSource::OnListBegin() { staged_.reset(); }

bool ConfigMapSource::OnListItem(const rapidjson::Value& object) {
  if (!name_.empty() && json::Str(json::Object(&object, "metadata"), "name") != name_) {
    return true;  // not ours (a server that ignored the field selector)
  }
  ConfigMapData d;
  if (!Read(object, &d)) return false;
  staged_ = std::move(d);
  return true;
}

void ConfigMapSource::OnListEnd(const std::string&) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t v = current_.version + 1;
  current_ = staged_ ? std::move(*staged_) : ConfigMapData{};
  current_.version = v;
  staged_.reset();
}

void ConfigMapSource::OnListAbort() { staged_.reset(); }

bool ConfigMapSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  if (!name_.empty() && json::Str(json::Object(&object, "metadata"), "name") != name_) return true;
  ConfigMapData d;
  if (type != WatchEventType::kDeleted && !Read(object, &d)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  d.version = current_.version + 1;
  current_ = std::move(d);
  return true;
}

std::optional<size_t> ConfigMapSource::ObjectCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.present ? 1 : 0;
}

ReflectorOptions ConfigMapReflectorOptions(const Config& config) {
  ReflectorOptions o = ReflectorOptionsFromConfig(
      config, "configmaps", ResourcePath("/api/v1", config.ca_status_namespace, "configmaps"));
  o.name = "configmaps/" + config.ca_status_namespace + "/" + config.ca_status_name;
  o.field_selector = "metadata.name=" + config.ca_status_name;
  return o;
}

}  // namespace podwait
