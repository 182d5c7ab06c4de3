#pragma once

// The exporter's Kubernetes inputs as a table (docs/DESIGN.md §7, "add an input"): each row is
// a resource, its API path, when it is read, and the handler of each of its reflectors, which
// hands the records it parses to the InputStores (the Pipeline's). app/inputs.h builds one
// reflector per (row, reflector options) from it, for the exporter and `kubectl podwait`.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/classify/autoscaler.h"
#include "exporter/common/clock.h"
#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/ca_status_source.h"
#include "exporter/state/input_stores.h"

namespace podwait {

// What the rows build their handlers from and into.
struct InputContext {
  const Config& config;
  // Where the handlers hand their records (the Pipeline).
  InputStores& stores;
  const Clock& clock;
  // The handlers (they outlive their reflectors).
  std::vector<std::unique_ptr<ReflectorHandler>>& handlers;
  // The cluster-autoscaler status, when its row is enabled (the evaluation loop reads it).
  std::unique_ptr<CaStatusSource>& ca_status;
  // Called for a CA status that does not parse.
  std::function<void(const std::string&)> on_ca_status_error;
};

struct InputSource {
  std::string_view resource;  // the Kubernetes resource (rows with several: "<v2 resources>")
  std::string_view api;       // its API path prefix
  bool (*enabled)(const InputContext&);
  // The options of each reflector of this input (per watched namespace, per pod shard, ...).
  std::vector<ReflectorOptions> (*reflectors)(const Config&);
  // The handler of one of them (kept in InputContext::handlers).
  ReflectorHandler& (*handler)(InputContext&, const ReflectorOptions&);
  // The optional input the row is (podwait_input_enabled{input}, the start's line of inputs that
  // are off); empty for the inputs every classification needs (pods, events) and for a row that
  // only completes another (the events on NodeClaims).
  std::string_view input = {};
};

std::span<const InputSource> InputSources();

// The --autoscaler mode of `config` (auto when it does not parse: CheckConfig refused it first).
AutoscalerMode AutoscalerModeOf(const Config& config);

}  // namespace podwait
