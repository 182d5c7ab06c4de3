#pragma once

// metadata.managedFields as the API server writes them on a pod: one entry per field manager,
// with a FieldsV1 set of the fields that manager set. Shared by the simulator's pods and the
// benchmarks' inputs.

#include <rapidjson/document.h>

#include "exporter/common/clock.h"

namespace podwait::sim {

// Adds metadata.managedFields to the pod `doc` (replacing any), made up from the document's own
// fields, all at time `at`:
//  - the creator owns the labels, annotations, owner references and spec it created the pod with:
//    kube-controller-manager (Update) for a StatefulSet's pod, tidb-operator (server-side Apply)
//    for a pod owned by a tidb-operator v2 instance (core.pingcap.com);
//  - tidb-controller-manager (Update) owns the tidb.pingcap.com/* labels tidb-operator v1 adds to
//    a running member (cluster-id, member-id, store-id), when there are any;
//  - kube-scheduler (Update, subresource status) owns a False PodScheduled condition of a pod it
//    could not place;
//  - the kubelet (Update, subresource status) owns the status of a pod bound to a node.
// Keys of list items follow the API server: k:{"name":…} for containers, env, ports, volumes and
// mounts, k:{"type":…} for conditions, k:{"ip":…} for IPs, k:{"uid":…} for owner references.
// The API server lists every leaf; with depth >= 0 the set of spec stops `depth` levels down and
// those of status `depth` - 1 levels down (a deeper field is listed as {}), as the made-up
// documents of tests/fixtures/v2/ abbreviate them: with every leaf listed, a pod of the load
// generation would carry twice as much managedFields as the rest of its metadata and spec.
void AddManagedFields(rapidjson::Document* doc, Timestamp at, int depth = -1);

}  // namespace podwait::sim
