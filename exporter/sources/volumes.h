#pragma once

// PersistentVolumeClaims (per watched namespace) and PersistentVolumes (cluster-scoped) into the
// VolumeStore (state/volume_store.h): what the classifier needs to tell a volume pinned to one
// node (a local PersistentVolume) from one any new node could reach (classify/volumes.h).
// A list the API server forbids (no RBAC for it) or does not serve disables the input with one
// log line: the pinning is then unknown, as without the watch.

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"
#include "exporter/state/volume_store.h"

namespace podwait {

// Pure. nullopt for a document without metadata.namespace/name.
std::optional<ClaimRecord> ParseClaim(const rapidjson::Value& object);
// Pure. nullopt for a document without metadata.name. The node a volume is pinned to: every term
// of spec.nodeAffinity.required.nodeSelectorTerms requires kubernetes.io/hostname In [...] (a
// matchExpressions entry, or matchFields on metadata.name) and the terms together allow exactly
// one node.
std::optional<VolumeRecord> ParseVolume(const rapidjson::Value& object);

// A handler that parses each object with Parse into a Record and hands the store a complete list
// after each (re)list, then each change. The input is optional: a 404 or a 403 disables it.
template <typename Record, std::optional<Record> (*Parse)(const rapidjson::Value&)>
class RecordSource : public ReflectorHandler {
 public:
  void OnListBegin() override { staged_.clear(); }
  bool OnListItem(const rapidjson::Value& object) override {
    std::optional<Record> r = Parse(object);
    if (!r) return false;
    staged_.push_back(std::move(*r));
    return true;
  }
  void OnListEnd(const std::string&) override {
    Replace(std::move(staged_));
    staged_ = {};
  }
  void OnListAbort() override { staged_ = {}; }
  bool OnEvent(WatchEventType type, const rapidjson::Value& object) override {
    std::optional<Record> r = Parse(object);
    if (!r) return false;
    if (type == WatchEventType::kDeleted) {
      Remove(*r);
    } else {
      Upsert(std::move(*r));
    }
    return true;
  }
  bool OnNotFound() override { return true; }
  bool OnForbidden() override { return true; }

 protected:
  virtual void Replace(std::vector<Record> listed) = 0;
  virtual void Upsert(Record record) = 0;
  virtual void Remove(const Record& record) = 0;

 private:
  std::vector<Record> staged_;
};

class ClaimSource final : public RecordSource<ClaimRecord, ParseClaim> {
 public:
  ClaimSource(VolumeStore& store, std::string namespace_scope)
      : store_(store), scope_(std::move(namespace_scope)) {}
  std::optional<size_t> ObjectCount() const override { return store_.ClaimCount(); }

 private:
  void Replace(std::vector<ClaimRecord> listed) override {
    store_.ReplaceClaims(scope_, std::move(listed));
  }
  void Upsert(ClaimRecord c) override { store_.UpsertClaim(std::move(c)); }
  void Remove(const ClaimRecord& c) override { store_.RemoveClaim(c.namespace_, c.name); }

  VolumeStore& store_;
  const std::string scope_;
};

class VolumeSource final : public RecordSource<VolumeRecord, ParseVolume> {
 public:
  explicit VolumeSource(VolumeStore& store) : store_(store) {}
  std::optional<size_t> ObjectCount() const override { return store_.VolumeCount(); }

 private:
  void Replace(std::vector<VolumeRecord> listed) override {
    store_.ReplaceVolumes(std::move(listed));
  }
  void Upsert(VolumeRecord v) override { store_.UpsertVolume(std::move(v)); }
  void Remove(const VolumeRecord& v) override { store_.RemoveVolume(v.name); }

  VolumeStore& store_;
};

// One claim reflector per watched namespace (or one over all); one volume reflector.
std::vector<ReflectorOptions> ClaimReflectorOptions(const Config& config);
std::vector<ReflectorOptions> VolumeReflectorOptions(const Config& config);

}  // namespace podwait
