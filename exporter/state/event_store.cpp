#include "exporter/state/event_store.h"

#include <algorithm>

#include "exporter/classify/autoscaler.h"

namespace podwait {
namespace {

std::string MakeKey(std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).push_back('/');
  key.append(name);
  return key;
}

bool SameEvent(const EventRecord& a, const EventRecord& b) {
  if (!a.uid.empty() && !b.uid.empty()) return a.uid == b.uid;
  return a.reason == b.reason && a.source == b.source && a.pod_uid == b.pod_uid;
}

}  // namespace

EventStore::EventStore(EventStoreOptions options)
    : opts_([&] {
        options.max_per_pod = std::max<size_t>(1, options.max_per_pod);
        return options;
      }()) {}

void EventStore::Touch(std::string_view namespace_, std::string_view name) {
  journal_.Record(++version_, PodName(namespace_, name));
}

void EventStore::AddLocked(EventRecord event) {
  const AutoscalerKind writer = EventAutoscalerKind(event);
  if (writer != AutoscalerKind::kNone) {
    last_autoscaler_event_[writer] = std::max(last_autoscaler_event_[writer], event.last);
  }
  std::string key = MakeKey(event.namespace_, event.pod_name);
  auto it = by_pod_.find(key);
  if (it == by_pod_.end()) {
    if (by_pod_.size() >= opts_.max_pods) {
      ++dropped_;
      return;
    }
    it = by_pod_.emplace(std::move(key), std::vector<EventRecord>{}).first;
  }
  auto& list = it->second;
  Touch(event.namespace_, event.pod_name);
  for (auto& e : list) {
    // The same event again, or a newer one of the same reason from the same source for the same
    // pod (only the latest of a kind matters to classification).
    const bool same = SameEvent(e, event);
    if (same ||
        (e.reason == event.reason && e.source == event.source && e.pod_uid == event.pod_uid)) {
      if (same || event.last >= e.last) e = std::move(event);
      return;
    }
  }
  if (list.size() >= opts_.max_per_pod) {
    auto oldest = std::min_element(list.begin(), list.end(),
                                   [](const auto& a, const auto& b) { return a.last < b.last; });
    if (oldest->last > event.last) return;  // older than everything kept
    *oldest = std::move(event);
    return;
  }
  list.push_back(std::move(event));
  ++events_;
}

void EventStore::Add(EventRecord event) {
  std::lock_guard<std::mutex> lock(mu_);
  AddLocked(std::move(event));
}

void EventStore::Remove(const EventRecord& event) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_pod_.find(MakeKey(event.namespace_, event.pod_name));
  if (it == by_pod_.end()) return;
  auto& list = it->second;
  auto pos = std::find_if(list.begin(), list.end(), [&](const EventRecord& e) {
    return event.uid.empty() ? SameEvent(e, event) : e.uid == event.uid;
  });
  if (pos == list.end()) return;
  list.erase(pos);
  --events_;
  Touch(event.namespace_, event.pod_name);
  if (list.empty()) by_pod_.erase(it);
}

void EventStore::Replace(std::vector<EventRecord> events, std::string_view namespace_scope) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = by_pod_.begin(); it != by_pod_.end();) {
    const bool in_scope = namespace_scope.empty() ||
                          (!it->second.empty() && it->second.front().namespace_ == namespace_scope);
    if (in_scope) {
      events_ -= it->second.size();
      if (!it->second.empty()) Touch(it->second.front().namespace_, it->second.front().pod_name);
      it = by_pod_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& e : events) {
    if (!namespace_scope.empty() && e.namespace_ != namespace_scope) continue;
    AddLocked(std::move(e));
  }
  ++version_;
}

void EventStore::ForgetPod(std::string_view namespace_, std::string_view name,
                           std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_pod_.find(MakeKey(namespace_, name));
  if (it == by_pod_.end()) return;
  auto& list = it->second;
  const size_t before = list.size();
  std::erase_if(list, [&](const EventRecord& e) {
    return uid.empty() || e.pod_uid.empty() || e.pod_uid == uid;
  });
  events_ -= before - list.size();
  if (before != list.size()) Touch(namespace_, name);
  if (list.empty()) by_pod_.erase(it);
}

size_t EventStore::Prune(const std::function<bool(std::string_view, std::string_view)>& pod_known,
                         Timestamp now) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t pruned = 0;
  for (auto it = by_pod_.begin(); it != by_pod_.end();) {
    const auto& list = it->second;
    Timestamp newest = 0;
    for (const auto& e : list) newest = std::max(newest, std::max(e.last, e.first));
    const bool old = list.empty() || now - newest > opts_.orphan_grace;
    if (old && (list.empty() || !pod_known(list.front().namespace_, list.front().pod_name))) {
      events_ -= list.size();
      if (!list.empty()) Touch(list.front().namespace_, list.front().pod_name);
      it = by_pod_.erase(it);
      ++pruned;
    } else {
      ++it;
    }
  }
  return pruned;
}

std::vector<EventRecord> EventStore::EventsFor(std::string_view namespace_, std::string_view name,
                                               std::string_view uid) const {
  std::vector<EventRecord> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_pod_.find(MakeKey(namespace_, name));
    if (it == by_pod_.end()) return out;
    for (const auto& e : it->second) {
      if (!uid.empty() && !e.pod_uid.empty() && e.pod_uid != uid) continue;
      out.push_back(e);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const EventRecord& a, const EventRecord& b) { return a.last > b.last; });
  return out;
}

size_t EventStore::PodCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_pod_.size();
}

size_t EventStore::EventCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

uint64_t EventStore::Version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

uint64_t EventStore::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

Timestamp EventStore::LastAutoscalerEvent(AutoscalerKind kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  return kind == AutoscalerKind::kNone ? 0 : last_autoscaler_event_[kind];
}

PerAutoscaler<Timestamp> EventStore::LastAutoscalerEvents() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_autoscaler_event_;
}

bool EventStore::ChangedPodsSince(uint64_t since, std::vector<PodName>* pods,
                                  uint64_t* version) const {
  std::lock_guard<std::mutex> lock(mu_);
  *version = version_;
  if (since > version_ || !journal_.Covers(since)) return false;
  journal_.Since(since, [&](const PodName& pod, uint64_t) { pods->push_back(pod); });
  return true;
}

}  // namespace podwait
