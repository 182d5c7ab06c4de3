#include "exporter/evaluate/change_feed.h"

#include <utility>

namespace podwait {

ChangeFeed::ChangeFeed(const PodStore& pods, const EventStore* events, const V2Store* v2)
    : pods_(pods), events_(events), v2_(v2) {}

ChangeFeed::Changes ChangeFeed::Read() {
  Changes out;
  PodChanges pods = pods_.ChangesSince(pod_version_);
  std::vector<PodName> named;
  uint64_t event_version = event_version_, v2_version = v2_version_;
  bool exact = !pods.full;
  if (events_ != nullptr)
    exact &= events_->ChangedPodsSince(event_version_, &named, &event_version);
  if (v2_ != nullptr) exact &= v2_->ChangedPodsSince(v2_version_, &named, &v2_version);
  pod_version_ = pods.version;
  event_version_ = event_version;
  v2_version_ = v2_version;
  if (!exact) {
    out.full = true;
    out.all = pods.full ? std::move(pods.upserted) : pods_.Snapshot();
    return out;
  }
  out.full = false;
  out.set.upserted = std::move(pods.upserted);
  for (const auto& [ns, name] : named) {
    if (PodPtr p = pods_.Get(ns, name)) out.set.upserted.push_back(std::move(p));
  }
  out.set.deleted.reserve(pods.deleted.size());
  for (auto& d : pods.deleted) out.set.deleted.push_back(std::move(d.uid));
  return out;
}

}  // namespace podwait
