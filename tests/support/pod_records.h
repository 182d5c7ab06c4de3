// Pod records for tests that feed the evaluator directly (made up; the fields ParsePod fills for a
// Pending TiKV pod of tidb-operator, see tests/fixtures for the documents themselves).
#pragma once

#include <memory>
#include <string>

#include "exporter/model/types.h"
#include "exporter/state/pod_store.h"  // PodPtr

namespace podwait::fixtures {

// A TiKV pod of `cluster` that has been Pending since `created`.
inline PodPtr PendingTikvPod(const std::string& ns, const std::string& cluster,
                             const std::string& name, Timestamp created) {
  auto p = std::make_shared<PodRecord>();
  p->uid = "uid-" + ns + "-" + name;
  p->namespace_ = ns;
  p->name = name;
  p->cluster = cluster;
  p->component = "tikv";
  p->created = created;
  p->phase = PodPhase::kPending;
  return p;
}

}  // namespace podwait::fixtures
