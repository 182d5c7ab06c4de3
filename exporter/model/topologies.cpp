#include "exporter/model/topologies.h"

namespace podwait {
namespace {

constexpr TopologyInfo kTopologies[] = {
    {"own_pd", "a TidbCluster with spec.pd, or pods of a cluster without a TidbCluster",
     "pkg/apis/pingcap/v1alpha1/types.go TidbClusterSpec.PD",
     "<cluster>-pd.<namespace>:2379 (--pd.url-template; a v2 Cluster's status.pd)",
     "the PD API; else the TidbCluster status; else the Ready PD pods (none: pd_not_ready)"},
    {"heterogeneous", "a TidbCluster with spec.cluster {name, namespace} and no spec.pd",
     "types.go TidbClusterSpec.Cluster, tidbcluster.go Heterogeneous()/WithoutLocalPD(), "
     "startscript/v1/render_script.go (\"use pd of reference cluster\")",
     "the referenced cluster's PD address (the template with its name and namespace)",
     "the referenced cluster's PD API, else its TidbCluster status with this cluster's own stores, "
     "else its Ready PD pods when they are watched here; else unknown (pd_elsewhere)"},
    {"across_kubernetes",
     "a TidbCluster without spec.pd whose PD is in another Kubernetes: spec.acrossK8s, a "
     "spec.cluster with a clusterDomain, or spec.pdAddresses",
     "types.go TidbClusterSpec.AcrossK8s, ClusterDomain, PDAddresses; startscript/v1 "
     "(the PD address from the discovery's /verify)",
     "the first of spec.pdAddresses (scheme and port 2379 added where missing); none: not probed",
     "the PD API when it answers; else unknown (pd_elsewhere), never not ready: no local PD is "
     "no outage. A cluster across Kubernetes that has its own spec.pd is own_pd"},
    {"no_pd_source", "a TidbCluster without spec.pd and nothing that says where PD is",
     "types.go TidbClusterSpec", "none", "unknown (pd_elsewhere)"},
    {"not_a_cluster",
     "pods of a TidbMonitor (component monitor), TidbNGMonitoring (ng-monitoring), TidbDashboard "
     "(tidb-dashboard), a discovery (discovery), the initializer (initializer), or with "
     "app.kubernetes.io/name tidb-ng-monitoring, tidb-dashboard, tidb-cluster-group, backup, "
     "restore or backup-schedule",
     "pkg/apis/label/label.go NewMonitor(), NewTiDBNGMonitoring(), NewTiDBDashboard(), "
     "Discovery(); tidb_discovery_manager.go getDiscoveryMeta",
     "none: they make no TiDB cluster, even when their instance label names one",
     "none: no dependency series; their pods are classified as any pod (volumes, capacity, "
     "crash loops)"},
    {"dm_cluster_v1",
     "pods with app.kubernetes.io/name dm-cluster (a v1 DMCluster's dm-master and dm-worker)",
     "label.go NewDM(); types.go DMCluster, DMClusterStatus.Master (members, health, leader)",
     "none: a DMCluster is no TiDB cluster",
     "its DMCluster's status.master (dmclusters.pingcap.com): dm-master ready while more than half "
     "of its masters are healthy, else not ready (dm_master_not_ready), so a dm-worker that "
     "crash-loops meanwhile waits as v2's DMWorker does; only the dm-master series, no PD"},
};

}  // namespace

std::span<const TopologyInfo> Topologies() { return kTopologies; }

}  // namespace podwait
