#include "exporter/sources/tidbcluster_source.h"

#include "exporter/common/log.h"

namespace podwait {
namespace {

// The key of a deleted object: only its metadata is needed (a tombstone may be partial).
std::optional<ClusterKey> KeyOf(const rapidjson::Value& object) {
  if (!object.IsObject()) return std::nullopt;
  auto meta = object.FindMember("metadata");
  if (meta == object.MemberEnd() || !meta->value.IsObject()) return std::nullopt;
  auto ns = meta->value.FindMember("namespace");
  auto name = meta->value.FindMember("name");
  if (ns == meta->value.MemberEnd() || name == meta->value.MemberEnd() || !ns->value.IsString() ||
      !name->value.IsString()) {
    return std::nullopt;
  }
  return ClusterKey{ns->value.GetString(), name->value.GetString()};
}

}  // namespace

TidbClusterSource::TidbClusterSource(TidbClusterCallbacks callbacks)
    : callbacks_(std::move(callbacks)) {}

void TidbClusterSource::OnListBegin() { staged_.clear(); }

bool TidbClusterSource::OnListItem(const rapidjson::Value& object) {
  TidbClusterParse parsed = ParseTidbCluster(object);
  if (!parsed.ok()) {
    LogDebug("bad TidbCluster skipped", {{"error", parsed.error}});
    return false;
  }
  staged_.push_back(std::move(*parsed.value));
  return true;
}

void TidbClusterSource::OnListEnd(const std::string&) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.clear();
    for (const auto& tc : staged_) keys_.insert(tc.key);
  }
  if (callbacks_.replace) callbacks_.replace(staged_);
  staged_.clear();
}

void TidbClusterSource::OnListAbort() { staged_.clear(); }

bool TidbClusterSource::OnEvent(WatchEventType type, const rapidjson::Value& object) {
  if (type == WatchEventType::kDeleted) {
    auto key = KeyOf(object);
    if (!key) return false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      keys_.erase(*key);
    }
    if (callbacks_.remove) callbacks_.remove(*key);
    return true;
  }
  if (type != WatchEventType::kAdded && type != WatchEventType::kModified) return true;
  TidbClusterParse parsed = ParseTidbCluster(object);
  if (!parsed.ok()) {
    LogDebug("bad TidbCluster skipped", {{"error", parsed.error}});
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.insert(parsed.value->key);
  }
  if (callbacks_.upsert) callbacks_.upsert(*parsed.value);
  return true;
}

bool TidbClusterSource::OnNotFound() {
  LogInfo("TidbCluster CRD not found; TidbCluster source disabled",
          {{"resource", "tidbclusters.pingcap.com"}});
  return true;
}

std::optional<size_t> TidbClusterSource::ObjectCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return keys_.size();
}

}  // namespace podwait
