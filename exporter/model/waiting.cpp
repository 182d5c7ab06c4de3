#include "exporter/model/waiting.h"

#include <utility>

namespace podwait {

std::string TidbClusterLabel(const std::string& ns, const std::string& cluster) {
  if (cluster.empty()) return std::string();
  return ns + "-" + cluster;
}

WaitingPod MakeWaitingPod(const PodRecord& pod, Classification classification,
                          Timestamp class_since) {
  WaitingPod w;
  w.namespace_ = pod.namespace_;
  w.cluster = pod.cluster;
  w.tidb_cluster = TidbClusterLabel(pod.namespace_, pod.cluster);
  w.component = pod.component;
  w.pod = pod.name;
  w.uid = pod.uid;
  w.classification = std::move(classification);
  w.class_since = class_since;
  return w;
}

}  // namespace podwait
