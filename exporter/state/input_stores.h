#pragma once

// The stores the inputs hand their records to (docs/DESIGN.md §7): one per watched resource, as
// the sources (sources/inputs.h) and explain's files write them. The Pipeline (evaluate/
// pipeline.h) is one: it owns them, wires them to the state derived from them and evaluates
// what they hold.

#include "exporter/state/dmcluster_store.h"
#include "exporter/state/event_store.h"
#include "exporter/state/nodeclaim_store.h"
#include "exporter/state/pod_store.h"
#include "exporter/state/provisioning_request_store.h"
#include "exporter/state/tidbcluster_store.h"
#include "exporter/state/v2_store.h"
#include "exporter/state/volume_store.h"

namespace podwait {

// Thread-safety: each store is thread-safe (its own lock).
class InputStores {
 public:
  InputStores() = default;
  InputStores(const InputStores&) = delete;
  InputStores& operator=(const InputStores&) = delete;

  EventStore& events() { return events_; }
  PodStore& pods() { return pods_; }
  TidbClusterStore& tidbclusters() { return tidbclusters_; }
  DmClusterStore& dmclusters() { return dmclusters_; }
  V2Store& v2() { return v2_; }
  VolumeStore& volumes() { return volumes_; }
  NodeClaimStore& nodeclaims() { return nodeclaims_; }
  ProvisioningRequestStore& provisioning_requests() { return provisioning_requests_; }

 protected:
  ~InputStores() = default;

  EventStore events_;
  PodStore pods_{&events_};  // keeps the event store's index of pods current
  TidbClusterStore tidbclusters_;
  DmClusterStore dmclusters_;
  V2Store v2_;
  VolumeStore volumes_;
  NodeClaimStore nodeclaims_;
  ProvisioningRequestStore provisioning_requests_;
};

}  // namespace podwait
