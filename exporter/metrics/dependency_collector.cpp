#include "exporter/metrics/dependency_collector.h"

#include <string>

#include "exporter/metrics/family_builder.h"

namespace podwait {

using Labels = std::vector<prometheus::ClientMetric::Label>;

DependencyCollector::DependencyCollector(const DependencyStore& store) : store_(store) {}

std::vector<prometheus::MetricFamily> DependencyCollector::Collect() const {
  const auto views = store_.Views();
  FamilyBuilder ready(metric::kDependencyReady);
  FamilyBuilder since(metric::kDependencyReadySince);
  FamilyBuilder probe(metric::kPdProbeSuccess);
  FamilyBuilder members(metric::kPdMembers);
  FamilyBuilder leader(metric::kPdLeader);
  FamilyBuilder initialized(metric::kClusterInitialized);
  FamilyBuilder stores(metric::kTikvStores);
  FamilyBuilder failover(metric::kFailoverMembers);

  for (const auto& [key, v] : views) {
    const std::string tidb_cluster = key.TidbClusterLabel();
    // Not `key` itself: clang before 16 cannot capture a structured binding (the fuzz build).
    const std::string& namespace_ = key.namespace_;
    auto base = [&]() { return Labels{{"namespace", namespace_}, {"tidb_cluster", tidb_cluster}}; };
    for (Dependency d : kAllDependencies) {
      const DependencyStatus& s = v.deps.Get(d);
      if (s.readiness == Readiness::kUnknown) continue;
      Labels l = base();
      l.push_back({"dependency", std::string(DependencyName(d))});
      if (s.readiness == Readiness::kReady && s.ready_since != 0) {
        since.Add(l, static_cast<double>(s.ready_since) / 1000.0);
      }
      ready.Add(std::move(l), s.readiness == Readiness::kReady ? 1 : 0);
    }
    if (v.pd) probe.Add(base(), v.pd->success ? 1 : 0);

    if (v.source == DependencySource::kPdApi && v.pd) {
      const PdFacts& f = *v.pd;
      if (f.health_known) {
        Labels h = base(), u = base();
        h.push_back({"health", "healthy"});
        u.push_back({"health", "unhealthy"});
        members.Add(std::move(h), f.members_healthy);
        members.Add(std::move(u), f.members_unhealthy);
      }
      leader.Add(base(), f.has_leader ? 1 : 0);
      if (f.is_initialized) initialized.Add(base(), *f.is_initialized ? 1 : 0);
      if (f.stores_known) {
        for (const auto& [state, n] : f.tikv_stores) {
          Labels l = base();
          l.push_back({"state", state});
          stores.Add(std::move(l), n);
        }
      }
    } else if (v.source == DependencySource::kTidbCluster) {
      Labels h = base(), u = base();
      h.push_back({"health", "healthy"});
      u.push_back({"health", "unhealthy"});
      members.Add(std::move(h), v.tc_pd_members_healthy);
      members.Add(std::move(u), v.tc_pd_members_unhealthy);
      leader.Add(base(), v.tc_pd_has_leader ? 1 : 0);
      for (const auto& [state, n] : v.tc_tikv_stores) {
        Labels l = base();
        l.push_back({"state", state});
        stores.Add(std::move(l), n);
      }
    }
    if (v.source == DependencySource::kV2Instances && v.v2) {
      // The operator's own view of a v2 cluster whose PD API cannot be reached: PD instances by
      // their Ready condition, TiKV stores by the state its TiKV instances report (Preparing,
      // Serving, Removing, ...). No leader gauge: instances do not say. No failover members.
      Labels h = base(), u = base();
      h.push_back({"health", "healthy"});
      u.push_back({"health", "unhealthy"});
      members.Add(std::move(h), v.v2->pd_instances_ready);
      members.Add(std::move(u), v.v2->pd_instances - v.v2->pd_instances_ready);
      for (const auto& [state, n] : v.v2->tikv_store_states) {
        Labels l = base();
        l.push_back({"state", state});
        stores.Add(std::move(l), n);
      }
    }
    for (const auto& [component, n] : v.failover_members) {
      Labels l = base();
      l.push_back({"component", component});
      failover.Add(std::move(l), n);
    }
  }

  std::vector<prometheus::MetricFamily> out;
  out.reserve(8);
  for (FamilyBuilder* b :
       {&ready, &since, &probe, &members, &leader, &initialized, &stores, &failover}) {
    b->MoveTo(&out);
  }
  return out;
}

}  // namespace podwait
