#pragma once

// The exporter's optional inputs (the rows of sources/inputs.h with an `input` name:
// tidbclusters, v2, ca_status, volumes, nodeclaims, provisioningrequests, dmclusters) and whether each is on:
// off by the configuration (a flag, the namespaced mode, the autoscaler mode), not served by the
// API server (its CRD is not installed: discovery, or a 404 to the list) or forbidden (a 403 to
// an input that may be refused). Once every reflector of them has synced or given up — or
// kSettleMs after the first look, with what is known then — one log line names the inputs that
// are off and why; an input that goes off later gets a line of its own.
// podwait_input_enabled{input} says each (docs/DESIGN.md §8, "Optional inputs").
//
// Thread-safety: AddInput()/AddReflector() before the reflectors start; Observe() from one thread
// (the evaluation loop). The reflectors' states are atomics.

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/kube/reflector.h"

namespace podwait {

class OptionalInputs {
 public:
  enum class Off : uint8_t { kOn, kConfigured, kNotServed, kForbidden };
  struct State {
    std::string input;
    Off off = Off::kOn;
    // Of an input that is on: its resources that are not (v2 CRDs an older operator lacks).
    std::vector<std::string> resources_off;
  };
  static constexpr int64_t kSettleMs = 30'000;

  // A row of the input table: its input name and whether the configuration turns it on. Rows of
  // one input (volumes: claims and volumes) are one input.
  void AddInput(std::string_view input, bool configured);
  void AddReflector(std::string_view input, const Reflector* reflector);

  // Now: an input the configuration turns on is off when every reflector of it gave up
  // (forbidden when any was refused, else not served).
  std::vector<State> States() const;
  // Every reflector of every input synced or gave up.
  bool Settled() const;
  // The evaluation loop's look (monotonic ms): logs the line once, when settled or kSettleMs
  // after the first look, and a line for each input that goes off after it. Returns States().
  std::vector<State> Observe(int64_t now_ms);

 private:
  struct Input {
    std::string name;
    bool configured = false;
    std::vector<const Reflector*> reflectors;
  };
  Input& Find(std::string_view input);

  std::vector<Input> inputs_;
  int64_t first_look_ms_ = -1;
  bool logged_ = false;
  std::set<std::string> logged_off_;  // inputs named off in a line
};

// "off by configuration", "not served", "forbidden" ("" for kOn).
std::string_view OffName(OptionalInputs::Off off);
// The line's `off`: "v2 (not served), nodeclaims (not served)"; an input on in part as
// "v2 (in part: routers, routergroups off)". Empty when every input is on.
std::string DescribeOff(std::span<const OptionalInputs::State> states);

}  // namespace podwait
