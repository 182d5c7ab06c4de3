#include "exporter/sources/ca_status_source.h"

#include <utility>

namespace podwait {

Result<CaStatus> ParseCaStatusData(const std::map<std::string, std::string>& data) {
  auto it = data.find("status");
  if (it == data.end()) return Result<CaStatus>::Fail("no \"status\" key");
  return ParseCaStatus(it->second);
}

CaStatusSource::CaStatusSource(std::string name,
                               std::function<void(const std::string&)> on_parse_error)
    : configmap_(std::move(name)), on_parse_error_(std::move(on_parse_error)) {}

CaStatusReading CaStatusSource::Read() {
  ConfigMapData cm = configmap_.Get();
  reading_.configmap_present = cm.present;
  if (cm.version != version_) {
    version_ = cm.version;
    reading_.status.reset();
    if (cm.present && cm.data.count("status") != 0) {
      Result<CaStatus> parsed = ParseCaStatusData(cm.data);
      if (parsed.ok()) {
        reading_.status = std::make_shared<const CaStatus>(std::move(*parsed.value));
      } else if (on_parse_error_) {
        on_parse_error_(parsed.error);
      }
    }
  }
  return reading_;
}

}  // namespace podwait
