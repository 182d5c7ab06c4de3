#pragma once

// How podwait treats each shape of tidb-operator object it meets (docs/DESIGN.md §4,
// "Topologies"), as `podwait-exporter contract` prints it (`topologies`). The rules themselves
// live where they act: PodOwnerOf (model/types.h) tells a TiDB cluster's pods from the rest,
// PdSource (model/tidbcluster_status.h) says where a v1 cluster's PD lives, the dependency store
// and PdTargetsFor (app/options.h) read and ask it. This table says what they do, in words.

#include <span>
#include <string_view>

namespace podwait {

struct TopologyInfo {
  std::string_view name;
  std::string_view shape;         // how podwait recognises it
  std::string_view source;        // where in tidb-operator v1.6 the shape is defined
  std::string_view pd_probe;      // what the PD prober asks
  std::string_view dependencies;  // what the dependency state reads, and its fallback
};

std::span<const TopologyInfo> Topologies();

}  // namespace podwait
