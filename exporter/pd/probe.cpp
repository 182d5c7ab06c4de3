#include "exporter/pd/probe.h"

#include <utility>

#include "exporter/common/label_values.h"

namespace podwait {

namespace {

template <typename T>
void NoteError(const PdAnswer<T>& answer, PdFacts* facts) {
  if (facts->error.empty() && !answer.error.empty() && !answer.not_bootstrapped) {
    facts->error = answer.error;
  }
  if (answer.pd_answered) facts->reachable = true;
}

}  // namespace

PdFacts ProbePd(PdClient& client, Timestamp now, bool with_config) {
  PdProbeSequence sequence(now, with_config);
  while (std::optional<PdEndpoint> endpoint = sequence.next()) {
    const HttpResponse response = client.Get(*endpoint);
    ReportPdRequest(client.observer(), *endpoint, response, sequence.OnResponse(response));
  }
  return sequence.Finish();
}

PdProbeSequence::PdProbeSequence(Timestamp now, bool with_config, PdProbeKind kind)
    : with_config_(with_config), kind_(kind) {
  facts_.probed_at = now;
}

PdErrorKind PdProbeSequence::OnResponse(const HttpResponse& response) {
  if (!next_) return PdErrorKind::kNone;
  switch (*next_) {
    case PdEndpoint::kHealth:
      return OnHealth(response);
    case PdEndpoint::kLeader:
      return OnLeader(response);
    case PdEndpoint::kMembers:
      return OnMembers(response);
    case PdEndpoint::kClusterStatus:
      return OnClusterStatus(response);
    case PdEndpoint::kStores:
      return OnStores(response);
    case PdEndpoint::kConfigReplicate: {
      // Informs only: its failure is not the probe's.
      auto replicate = InterpretPdResponse(*next_, response, ParsePdReplicateConfig);
      if (replicate.ok()) facts_.max_replicas = replicate.value->max_replicas;
      next_.reset();
      return replicate.error_kind;
    }
  }
  next_.reset();
  return PdErrorKind::kNone;
}

PdErrorKind PdProbeSequence::OnHealth(const HttpResponse& response) {
  auto health = InterpretPdResponse(PdEndpoint::kHealth, response, ParsePdHealth);
  NoteError(health, &facts_);
  if (health.ok()) {
    facts_.health_known = true;
    for (const auto& m : *health.value) {
      (m.health ? facts_.members_healthy : facts_.members_unhealthy)++;
    }
  }
  health_ok_ = health.ok() && health.error_kind == PdErrorKind::kNone;
  no_answer_ = health.transport_failed();
  const bool more = !health.transport_failed() && kind_ == PdProbeKind::kFull;
  next_ = more ? std::optional(PdEndpoint::kLeader) : std::nullopt;
  return health.error_kind;
}

PdErrorKind PdProbeSequence::OnLeader(const HttpResponse& response) {
  auto leader = InterpretPdResponse(PdEndpoint::kLeader, response, ParsePdLeader);
  NoteError(leader, &facts_);
  if (leader.ok()) {
    facts_.leader_known = true;
    facts_.has_leader = leader.value->has_value();
    if (facts_.has_leader) facts_.leader_name = (*leader.value)->name;
    next_ = PdEndpoint::kClusterStatus;
  } else if (leader.transport_failed()) {
    next_.reset();
  } else {
    next_ = PdEndpoint::kMembers;  // PD before /leader, or a proxy answering it
  }
  return leader.error_kind;
}

PdErrorKind PdProbeSequence::OnMembers(const HttpResponse& response) {
  auto members = InterpretPdResponse(PdEndpoint::kMembers, response, ParsePdMembers);
  NoteError(members, &facts_);
  if (members.ok()) {
    facts_.leader_known = true;
    facts_.has_leader = members.value->leader.has_value();
    if (facts_.has_leader) facts_.leader_name = members.value->leader->name;
  }
  next_ = members.transport_failed() ? std::nullopt : std::optional(PdEndpoint::kClusterStatus);
  return members.error_kind;
}

PdErrorKind PdProbeSequence::OnClusterStatus(const HttpResponse& response) {
  auto status = InterpretPdResponse(PdEndpoint::kClusterStatus, response, ParsePdClusterStatus);
  NoteError(status, &facts_);
  if (status.ok()) {
    facts_.cluster_status_known = true;
    facts_.is_initialized = status.value->is_initialized;
  }
  next_ = status.transport_failed() ? std::nullopt : std::optional(PdEndpoint::kStores);
  return status.error_kind;
}

PdErrorKind PdProbeSequence::OnStores(const HttpResponse& response) {
  auto stores = InterpretPdResponse(PdEndpoint::kStores, response, ParsePdStores);
  NoteError(stores, &facts_);
  if (stores.ok()) {
    facts_.stores_known = true;
    for (const auto& s : stores.value->stores) {
      if (s.IsTiFlash()) {
        ++facts_.tiflash_stores;
      } else {
        ++facts_.tikv_stores[std::string(StoreStateLabel(s.state_name))];
      }
    }
  } else if (stores.not_bootstrapped) {
    facts_.stores_known = true;
    facts_.not_bootstrapped = true;
  }
  next_ = stores.transport_failed() ? std::nullopt : AfterStores();
  return stores.error_kind;
}

std::optional<PdEndpoint> PdProbeSequence::AfterStores() const {
  if (with_config_) return PdEndpoint::kConfigReplicate;
  return std::nullopt;
}

PdFacts PdProbeSequence::Finish() {
  if (kind_ == PdProbeKind::kHealthOnly) {
    facts_.success = health_ok_ && facts_.members_unhealthy == 0 && facts_.members_healthy > 0;
  } else {
    facts_.success =
        health_ok_ && facts_.leader_known && facts_.cluster_status_known && facts_.stores_known;
  }
  return std::move(facts_);
}

bool PdFactsHealthy(const PdFacts& f) {
  if (!f.success || !f.has_leader || f.members_unhealthy != 0 || f.not_bootstrapped) return false;
  if (f.is_initialized == std::optional<bool>(false)) return false;
  for (const char* bad : {"Disconnected", "Down", "Offline"}) {
    if (f.TikvStoresIn(bad) != 0) return false;
  }
  return f.TikvStoresIn("Up") > 0;
}

}  // namespace podwait
