#pragma once

// What the exporter (and `kubectl podwait`) ask the API server before and after building their
// reflectors: one event loop for all of them; whether the account may watch a resource in every
// namespace (SelfSubjectAccessReviews, so that many --namespaces become one cluster-wide watch
// exactly when allowed); and which collections it serves (discovery, so that a resource it does
// not serve is never requested, per namespace or at all).

#include <memory>
#include <vector>

#include "exporter/config/config.h"
#include "exporter/kube/reflector.h"

namespace podwait {

// Gives `kube` its event loop and an empty ApiResources, and `config` a may_watch_cluster_wide
// that asks (list and watch, once per resource) with kube->env.http's client. Before building.
void PrepareKube(Config* config, KubeContext* kube);

// Reads discovery for the group versions of `reflectors` into kube.served, logging each
// collection it does not serve once. After building, before the reflectors start. Without an
// answer nothing is known: every collection is asked for, as without discovery.
void DiscoverServed(const KubeContext& kube,
                    const std::vector<std::unique_ptr<Reflector>>& reflectors);

}  // namespace podwait
