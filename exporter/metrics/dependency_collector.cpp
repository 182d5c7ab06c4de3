#include "exporter/metrics/dependency_collector.h"

#include <string>

#include "exporter/metrics/family_builder.h"

namespace podwait {

using Labels = std::vector<prometheus::ClientMetric::Label>;

DependencyCollector::DependencyCollector(const DependencyStore& store) : store_(store) {}

std::vector<prometheus::MetricFamily> DependencyCollector::Collect() const {
  const auto views = store_.Views();
  using prometheus::MetricType;
  FamilyBuilder ready("podwait_dependency_ready",
                      "Whether a TiDB cluster's dependency is ready (1) or not (0); absent while "
                      "unknown.",
                      MetricType::Gauge);
  FamilyBuilder since("podwait_dependency_ready_since_timestamp_seconds",
                      "When the dependency last became ready (Unix seconds); only while ready.",
                      MetricType::Gauge);
  FamilyBuilder probe("podwait_pd_probe_success",
                      "Whether the last PD API probe of the cluster answered and parsed.",
                      MetricType::Gauge);
  FamilyBuilder members("podwait_pd_members", "PD members by health.", MetricType::Gauge);
  FamilyBuilder leader("podwait_pd_leader", "1 when PD has a leader.", MetricType::Gauge);
  FamilyBuilder initialized("podwait_cluster_initialized",
                            "PD's cluster/status is_initialized (absent when PD does not say).",
                            MetricType::Gauge);
  FamilyBuilder stores("podwait_tikv_stores", "TiKV stores by state (TiFlash excluded).",
                       MetricType::Gauge);
  FamilyBuilder failover(
      "podwait_failover_members",
      "Failover members/stores tidb-operator recorded in the TidbCluster status.",
      MetricType::Gauge);

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

void SelfMetricsProbeObserver::OnRequest(PdEndpoint endpoint, double seconds, PdErrorKind kind) {
  const std::string name(PdEndpointName(endpoint));
  metrics_.ProbeDuration(name).Observe(seconds);
  if (kind != PdErrorKind::kNone && kind != PdErrorKind::kCancelled) {
    metrics_.ProbeErrors(name, std::string(PdErrorKindName(kind))).Increment();
  }
}

void SelfMetricsProbeObserver::OnRound(double seconds) {
  metrics_.ProbeRoundSeconds().Set(seconds);
}

}  // namespace podwait
