#include "exporter/metrics/dependency_collector.h"

#include <array>
#include <string>

#include "exporter/metrics/text_writer.h"

namespace podwait {
namespace {

// The families, in the order they are written.
constexpr std::array<const MetricInfo*, 9> kFamilies = {
    &metric::kDependencyReady, &metric::kDependencyReadySince,
    &metric::kPdProbeSuccess,  &metric::kPdMembers,
    &metric::kPdLeader,        &metric::kClusterInitialized,
    &metric::kTikvStores,      &metric::kFailoverMembers,
    &metric::kClusterHold};

// One buffer per family, filled in one pass over the clusters, then written family by family.
class Bodies {
 public:
  explicit Bodies(size_t clusters) {
    for (auto& b : body_) b.reserve(clusters * 96);
  }
  // A sample of family M (one of kFamilies), its label values in the family's order.
  template <const MetricInfo& M, size_t N>
  void Sample(const std::string_view (&values)[N], double value) {
    TextWriter(&body_[Index<M>()]).Sample<M>(values, value);
  }
  void AppendTo(std::string* out) const {
    size_t total = 0;
    for (const auto& b : body_) total += b.size() + 256;
    out->reserve(out->size() + total);
    TextWriter header(out);
    for (size_t f = 0; f < kFamilies.size(); ++f) {
      // An empty family is still written, so HELP and TYPE stay visible.
      header.Family(*kFamilies[f]);
      out->append(body_[f]);
    }
  }

 private:
  template <const MetricInfo& M>
  static constexpr size_t Index() {
    constexpr size_t i = [] {
      for (size_t j = 0; j < kFamilies.size(); ++j) {
        if (kFamilies[j] == &M) return j;
      }
      return kFamilies.size();
    }();
    static_assert(i < kFamilies.size(), "a family of kFamilies");
    return i;
  }
  std::array<std::string, kFamilies.size()> body_;
};

}  // namespace

DependencyCollector::DependencyCollector(ViewsFn views) : views_(std::move(views)) {}

DependencyCollector::DependencyCollector(const DependencyStore& store)
    : views_([&store] { return store.Views(); }) {}

void DependencyCollector::AppendText(std::string* out) const {
  const auto views = views_();
  Bodies b(views.size());
  std::string tidb_cluster;
  for (const auto& [key, v] : views) {
    tidb_cluster = key.TidbClusterLabel();
    const std::string_view ns = key.namespace_;
    const std::string_view tc = tidb_cluster;
    auto members = [&](double healthy, double unhealthy) {
      b.Sample<metric::kPdMembers>({ns, tc, "healthy"}, healthy);
      b.Sample<metric::kPdMembers>({ns, tc, "unhealthy"}, unhealthy);
    };
    for (Dependency d : kAllDependencies) {
      const DependencyStatus& s = v.deps.Get(d);
      if (s.readiness == Readiness::kUnknown) continue;
      b.Sample<metric::kDependencyReady>({ns, tc, DependencyName(d)},
                                         s.readiness == Readiness::kReady ? 1 : 0);
      if (s.readiness == Readiness::kReady && s.ready_since != 0) {
        b.Sample<metric::kDependencyReadySince>({ns, tc, DependencyName(d)},
                                                static_cast<double>(s.ready_since) / 1000.0);
      }
    }
    if (v.pd) b.Sample<metric::kPdProbeSuccess>({ns, tc}, v.pd->success ? 1 : 0);

    if (v.source == DependencySource::kPdApi && v.pd) {
      const PdFacts& f = *v.pd;
      if (f.health_known) members(f.members_healthy, f.members_unhealthy);
      b.Sample<metric::kPdLeader>({ns, tc}, f.has_leader ? 1 : 0);
      if (f.is_initialized)
        b.Sample<metric::kClusterInitialized>({ns, tc}, *f.is_initialized ? 1 : 0);
      if (f.stores_known) {
        for (const auto& [state, n] : f.tikv_stores)
          b.Sample<metric::kTikvStores>({ns, tc, state}, n);
      }
    } else if (v.source == DependencySource::kTidbCluster) {
      members(v.tc_pd_members_healthy, v.tc_pd_members_unhealthy);
      b.Sample<metric::kPdLeader>({ns, tc}, v.tc_pd_has_leader ? 1 : 0);
      for (const auto& [state, n] : v.tc_tikv_stores)
        b.Sample<metric::kTikvStores>({ns, tc, state}, n);
    }
    if (v.source == DependencySource::kV2Instances && v.v2) {
      // The operator's own view of a v2 cluster whose PD API cannot be reached: PD instances by
      // their Ready condition, TiKV stores by the state its TiKV instances report (Preparing,
      // Serving, Removing, ...). No leader gauge: instances do not say. No failover members.
      members(v.v2->pd_instances_ready, v.v2->pd_instances - v.v2->pd_instances_ready);
      for (const auto& [state, n] : v.v2->tikv_store_states) {
        b.Sample<metric::kTikvStores>({ns, tc, state}, n);
      }
    }
    for (const auto& [component, n] : v.failover_members) {
      b.Sample<metric::kFailoverMembers>({ns, tc, component}, n);
    }
    // What tidb-operator v2 holds on purpose (OperatorHold): one series per hold in force.
    for (std::string_view hold : HoldNames(v.deps.hold)) {
      b.Sample<metric::kClusterHold>({ns, tc, hold}, 1);
    }
  }
  b.AppendTo(out);
}

}  // namespace podwait
