#include "exporter/model/waiting.h"

#include <utility>

#include "exporter/model/v2.h"

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
  if (pod.v2_instance) w.v2_instance = v2::InstanceNameOfPod(pod.name, pod.component);
  w.uid = pod.uid;
  w.owner = pod.owner;
  w.classification = std::move(classification);
  w.class_since = class_since;
  return w;
}

}  // namespace podwait
