#include "exporter/classify/dependency_times.h"

#include <algorithm>

namespace podwait {

Timestamp ClusterReadySince(const DependencyInputs& in, Dependency d) {
  Timestamp since = 0;
  if (in.tc != nullptr) {
    if (d == Dependency::kPd) {
      if (!in.tc->pd_leader.empty()) since = std::max(since, in.tc->pd_healthy_since);
    } else if (d == Dependency::kTikv) {
      for (const auto& s : in.tc->tikv_stores) {
        if (s.state == "Up") since = std::max(since, s.last_transition);
      }
    }
  }
  if (in.v2 != nullptr && in.v2->present) {
    since = std::max(since, d == Dependency::kPd     ? in.v2->pd_ready_since
                            : d == Dependency::kTikv ? in.v2->tikv_ready_since
                            : d == Dependency::kTso  ? in.v2->tso_ready_since
                                                     : in.v2->dm_ready_since);
  }
  return since;
}

}  // namespace podwait
