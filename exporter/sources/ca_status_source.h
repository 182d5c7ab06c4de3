#pragma once

// The cluster-autoscaler status ConfigMap (kube-system/cluster-autoscaler-status) as the
// evaluation reads it: a ConfigMapSource (one reflector) whose "status" key is parsed again only
// when the ConfigMap changed.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "exporter/classify/ca_status.h"
#include "exporter/common/result.h"
#include "exporter/sources/configmap.h"

namespace podwait {

// Pure: the CaStatus in the "status" key of a ConfigMap's data; an error when there is no such
// key or it does not parse.
Result<CaStatus> ParseCaStatusData(const std::map<std::string, std::string>& data);

// Read() from one thread (the evaluation loop); the ConfigMapSource's handler methods run on its
// reflector's thread.
class CaStatusSource {
 public:
  // `on_parse_error` is called once per change that does not parse (with the error).
  CaStatusSource(std::string name, std::function<void(const std::string&)> on_parse_error);
  CaStatusSource(const CaStatusSource&) = delete;
  CaStatusSource& operator=(const CaStatusSource&) = delete;

  // The handler of the ConfigMap's reflector.
  ConfigMapSource& handler() { return configmap_; }

  // The current reading: whether the ConfigMap exists, and its status when it parsed.
  CaStatusReading Read();

 private:
  ConfigMapSource configmap_;
  const std::function<void(const std::string&)> on_parse_error_;
  uint64_t version_ = 0;
  CaStatusReading reading_;
};

}  // namespace podwait
