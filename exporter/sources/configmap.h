#pragma once

// Keeps the `data` of one ConfigMap (e.g. kube-system/cluster-autoscaler-status) for whoever
// parses its content. A ReflectorHandler for a reflector with fieldSelector=metadata.name=<name>.

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/reflector_options.h"

namespace podwait {

struct ConfigMapData {
  bool present = false;  // the ConfigMap exists
  std::map<std::string, std::string> data;
  std::string resource_version;
  uint64_t version = 0;  // bumped on every change seen here (also on deletion)
};

// Pure: the data map of a ConfigMap document; nullopt when it is not a ConfigMap-shaped object.
// Non-string values are skipped.
std::optional<std::map<std::string, std::string>> ParseConfigMapData(
    const rapidjson::Value& object);

// Thread-safe getters; the handler methods run on the reflector's thread.
class ConfigMapSource final : public ReflectorHandler {
 public:
  explicit ConfigMapSource(std::string name);

  // The latest state (a copy; ConfigMaps are small).
  ConfigMapData Get() const;
  uint64_t Version() const;

  void OnListBegin() override;
  bool OnListItem(const rapidjson::Value& object) override;
  void OnListEnd(const std::string& resource_version) override;
  void OnListAbort() override;
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override;
  std::optional<size_t> ObjectCount() const override;

 private:
  // Parses into *out; false when malformed.
  bool Read(const rapidjson::Value& object, ConfigMapData* out) const;

  const std::string name_;
  mutable std::mutex mu_;
  ConfigMapData current_;
  std::optional<ConfigMapData> staged_;  // the list in progress found it
};

// Reflector options for config.ca_status_namespace/ca_status_name (resource "configmaps").
ReflectorOptions ConfigMapReflectorOptions(const Config& config);

}  // namespace podwait
