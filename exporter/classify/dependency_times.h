#pragma once

// The cluster's own dates of its dependencies' readiness, where its objects carry them: the
// TidbCluster status (status.pd.members[].lastTransitionTime of the healthy members,
// status.tikv.stores[].lastTransitionTime of the Up stores) and tidb-operator v2's instances
// (the Ready condition's lastTransitionTime of the Ready PD instances and of the Ready, Serving
// TiKV instances). The dependency store dates a dependency it first sees ready (after an exporter
// restart) from these, falling back to the time it first saw it; a transition it watches happen
// is dated by its own clock.

#include "exporter/classify/dependencies.h"
#include "exporter/model/types.h"

namespace podwait {

// The latest of the dates the inputs give for `d` being ready (the last member to turn ready: a
// dependency is never older than any of the members it counts); 0 when none gives one.
Timestamp ClusterReadySince(const DependencyInputs& in, Dependency d);

}  // namespace podwait
