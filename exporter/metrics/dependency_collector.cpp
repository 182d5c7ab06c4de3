#include "exporter/metrics/dependency_collector.h"

#include <array>
#include <string>

#include "exporter/metrics/text_writer.h"

namespace podwait {

DependencyCollector::DependencyCollector(const DependencyStore& store) : store_(store) {}

void DependencyCollector::AppendText(std::string* out) const {
  const auto views = store_.Views();
  // One buffer per family, filled in one pass over the clusters, then written family by family.
  enum Family { kReady, kSince, kProbe, kMembers, kLeader, kInitialized, kStores, kFailover, kN };
  static constexpr std::array<const MetricInfo*, kN> kInfo = {
      &metric::kDependencyReady, &metric::kDependencyReadySince,
      &metric::kPdProbeSuccess,  &metric::kPdMembers,
      &metric::kPdLeader,        &metric::kClusterInitialized,
      &metric::kTikvStores,      &metric::kFailoverMembers};
  std::array<std::string, kN> body;
  for (auto& b : body) b.reserve(views.size() * 96);
  std::array<TextWriter, kN> w = {TextWriter(&body[0]), TextWriter(&body[1]), TextWriter(&body[2]),
                                  TextWriter(&body[3]), TextWriter(&body[4]), TextWriter(&body[5]),
                                  TextWriter(&body[6]), TextWriter(&body[7])};
  std::string tidb_cluster;
  for (const auto& [key, v] : views) {
    tidb_cluster = key.TidbClusterLabel();
    const std::string_view ns = key.namespace_;
    // The two labels every series has, and one more.
    auto sample = [&](Family f, double value) {
      w[f].Sample(kInfo[f]->name, {{"namespace", ns}, {"tidb_cluster", tidb_cluster}}, value);
    };
    auto sample3 = [&](Family f, std::string_view label, std::string_view value, double x) {
      w[f].Sample(kInfo[f]->name, {{"namespace", ns}, {"tidb_cluster", tidb_cluster}},
                  {label, value}, x);
    };
    auto members = [&](double healthy, double unhealthy) {
      sample3(kMembers, "health", "healthy", healthy);
      sample3(kMembers, "health", "unhealthy", unhealthy);
    };
    for (Dependency d : kAllDependencies) {
      const DependencyStatus& s = v.deps.Get(d);
      if (s.readiness == Readiness::kUnknown) continue;
      sample3(kReady, "dependency", DependencyName(d), s.readiness == Readiness::kReady ? 1 : 0);
      if (s.readiness == Readiness::kReady && s.ready_since != 0) {
        sample3(kSince, "dependency", DependencyName(d),
                static_cast<double>(s.ready_since) / 1000.0);
      }
    }
    if (v.pd) sample(kProbe, v.pd->success ? 1 : 0);

    if (v.source == DependencySource::kPdApi && v.pd) {
      const PdFacts& f = *v.pd;
      if (f.health_known) members(f.members_healthy, f.members_unhealthy);
      sample(kLeader, f.has_leader ? 1 : 0);
      if (f.is_initialized) sample(kInitialized, *f.is_initialized ? 1 : 0);
      if (f.stores_known) {
        for (const auto& [state, n] : f.tikv_stores) sample3(kStores, "state", state, n);
      }
    } else if (v.source == DependencySource::kTidbCluster) {
      members(v.tc_pd_members_healthy, v.tc_pd_members_unhealthy);
      sample(kLeader, v.tc_pd_has_leader ? 1 : 0);
      for (const auto& [state, n] : v.tc_tikv_stores) sample3(kStores, "state", state, n);
    }
    if (v.source == DependencySource::kV2Instances && v.v2) {
      // The operator's own view of a v2 cluster whose PD API cannot be reached: PD instances by
      // their Ready condition, TiKV stores by the state its TiKV instances report (Preparing,
      // Serving, Removing, ...). No leader gauge: instances do not say. No failover members.
      members(v.v2->pd_instances_ready, v.v2->pd_instances - v.v2->pd_instances_ready);
      for (const auto& [state, n] : v.v2->tikv_store_states) sample3(kStores, "state", state, n);
    }
    for (const auto& [component, n] : v.failover_members) {
      sample3(kFailover, "component", component, n);
    }
  }

  size_t total = 0;
  for (const auto& b : body) total += b.size() + 256;
  out->reserve(out->size() + total);
  TextWriter header(out);
  for (int f = 0; f < kN; ++f) {
    // An empty family is still written, so HELP and TYPE stay visible.
    header.Family(*kInfo[f]);
    out->append(body[f]);
  }
}

}  // namespace podwait
