#include "exporter/model/types.h"

namespace podwait {
const DependencyMap& DefaultDependencyMap() {
  static const DependencyMap map = {
      {"tikv", {Dependency::kPd}},
      {"tidb", {Dependency::kPd, Dependency::kTikv}},
      {"tiflash", {Dependency::kPd, Dependency::kTikv}},
      {"ticdc", {Dependency::kPd, Dependency::kTikv}},
      {"pump", {Dependency::kPd}},
      // PD microservices (tidb-operator v1 pdms and v2 TSO/Scheduling groups): their config's
      // backend-endpoints is the PD service (v2: pkg/configs/{tso,scheduling}/config.go).
      {"tso", {Dependency::kPd}},
      {"scheduling", {Dependency::kPd}},
      {"scheduler", {Dependency::kPd}},
  };
  return map;
}

}  // namespace podwait
