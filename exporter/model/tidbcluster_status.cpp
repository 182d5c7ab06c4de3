#include "exporter/model/tidbcluster_status.h"

namespace podwait {

std::string PdSourceText(const PdSource& source) {
  switch (source.kind) {
    case PdSourceKind::kOwn:
      return "own PD (spec.pd)";
    case PdSourceKind::kReferenced:
      return "PD of " + source.referenced.Key() + " (spec.cluster, no spec.pd)";
    case PdSourceKind::kExternal: {
      std::string text = "PD in another Kubernetes";
      if (!source.cluster_domain.empty()) text += " (cluster domain " + source.cluster_domain + ")";
      if (source.addresses.empty()) return text + ", no spec.pdAddresses to ask";
      return text + " at " + source.addresses.front() + " (spec.pdAddresses)";
    }
    case PdSourceKind::kUnknown:
      return "no spec.pd and nothing that says where PD is";
  }
  return {};
}

}  // namespace podwait
