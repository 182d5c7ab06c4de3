#include "exporter/app/optional_inputs.h"

#include <algorithm>
#include <map>

#include "exporter/common/log.h"

namespace podwait {

std::string_view OffName(OptionalInputs::Off off) {
  switch (off) {
    case OptionalInputs::Off::kOn:
      return "";
    case OptionalInputs::Off::kConfigured:
      return "off by configuration";
    case OptionalInputs::Off::kNotServed:
      return "not served";
    case OptionalInputs::Off::kForbidden:
      return "forbidden";
  }
  return "";
}

OptionalInputs::Input& OptionalInputs::Find(std::string_view input) {
  for (Input& i : inputs_) {
    if (i.name == input) return i;
  }
  inputs_.push_back(Input{std::string(input), false, {}});
  return inputs_.back();
}

void OptionalInputs::AddInput(std::string_view input, bool configured) {
  if (input.empty()) return;
  Input& i = Find(input);
  i.configured = i.configured || configured;
}

void OptionalInputs::AddReflector(std::string_view input, const Reflector* reflector) {
  if (input.empty()) return;
  Find(input).reflectors.push_back(reflector);
}

std::vector<OptionalInputs::State> OptionalInputs::States() const {
  std::vector<State> out;
  for (const Input& i : inputs_) {
    State s;
    s.input = i.name;
    if (!i.configured) {
      s.off = Off::kConfigured;
      out.push_back(std::move(s));
      continue;
    }
    // By resource: whether every reflector of it gave up, and whether one was refused.
    std::map<std::string, std::pair<bool, bool>> resources;  // off, forbidden
    bool all_off = !i.reflectors.empty();
    bool forbidden = false;
    for (const Reflector* r : i.reflectors) {
      const Reflector::DisabledBy by = r->disabled_by();
      auto [it, inserted] = resources.try_emplace(r->options().resource, true, false);
      it->second.first = it->second.first && by != Reflector::DisabledBy::kNone;
      it->second.second = it->second.second || by == Reflector::DisabledBy::kForbidden;
      all_off = all_off && by != Reflector::DisabledBy::kNone;
      forbidden = forbidden || by == Reflector::DisabledBy::kForbidden;
    }
    if (all_off) {
      s.off = forbidden ? Off::kForbidden : Off::kNotServed;
    } else {
      for (const auto& [resource, off] : resources) {
        if (off.first) s.resources_off.push_back(resource);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool OptionalInputs::Settled() const {
  for (const Input& i : inputs_) {
    for (const Reflector* r : i.reflectors) {
      if (!r->synced() && !r->disabled()) return false;
    }
  }
  return true;
}

std::vector<OptionalInputs::State> OptionalInputs::Observe(int64_t now_ms) {
  if (first_look_ms_ < 0) first_look_ms_ = now_ms;
  // Settled before the states: the reflectors move on their own thread, and states read after
  // "settled" cannot be older than it (a reflector that synced or gave up stays so).
  const bool settled = Settled();
  std::vector<State> states = States();
  if (!logged_) {
    if (!settled && now_ms - first_look_ms_ < kSettleMs) return states;
    logged_ = true;
    for (const State& s : states) {
      if (s.off != Off::kOn) logged_off_.insert(s.input);
    }
    const std::string off = DescribeOff(states);
    if (!off.empty()) {
      LogInfo("optional inputs off; podwait classifies without them",
              {{"off", off}, {"settled", settled ? "true" : "false"}});
    }
    return states;
  }
  for (const State& s : states) {
    if (s.off == Off::kOn || !logged_off_.insert(s.input).second) continue;
    LogInfo("optional input off; podwait classifies without it",
            {{"input", s.input}, {"why", std::string(OffName(s.off))}});
  }
  return states;
}

std::string DescribeOff(std::span<const OptionalInputs::State> states) {
  std::string out;
  for (const auto& s : states) {
    std::string item;
    if (s.off != OptionalInputs::Off::kOn) {
      item = s.input + " (" + std::string(OffName(s.off)) + ")";
    } else if (!s.resources_off.empty()) {
      std::string list;
      for (const auto& r : s.resources_off) list += (list.empty() ? "" : ", ") + r;
      item = s.input + " (in part: " + list + " off)";
    } else {
      continue;
    }
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

}  // namespace podwait
