#include "exporter/model/types.h"

namespace podwait {
const DependencyMap& DefaultDependencyMap() {
  static const DependencyMap map = {
      {"tikv", {Dependency::kPd}},
      {"tidb", {Dependency::kPd, Dependency::kTikv}},
      {"tiflash", {Dependency::kPd, Dependency::kTikv}},
      {"ticdc", {Dependency::kPd, Dependency::kTikv}},
      {"pump", {Dependency::kPd}},
  };
  return map;
}

}  // namespace podwait
