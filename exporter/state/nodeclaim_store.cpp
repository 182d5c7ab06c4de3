#include "exporter/state/nodeclaim_store.h"

#include <algorithm>
#include <utility>

namespace podwait {

void NodeClaimStore::Replace(std::vector<NodeClaimFacts> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  current_.claims.clear();
  for (NodeClaimFacts& c : listed) {
    std::string name = c.name;
    current_.claims.insert_or_assign(std::move(name), std::move(c));
  }
  current_.synced = true;
  view_.reset();
}

void NodeClaimStore::Upsert(NodeClaimFacts claim) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.claims.find(claim.name);
  if (it != current_.claims.end() && it->second == claim) return;
  std::string name = claim.name;
  current_.claims.insert_or_assign(std::move(name), std::move(claim));
  view_.reset();
}

void NodeClaimStore::Remove(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.claims.find(name);
  if (it == current_.claims.end()) return;
  current_.claims.erase(it);
  view_.reset();
}

void NodeClaimStore::ReplaceFailures(std::vector<NodeClaimFailure> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  current_.failures.clear();
  for (NodeClaimFailure& f : listed) {
    auto it = current_.failures.find(f.nodeclaim);
    if (it != current_.failures.end() && it->second.at > f.at) continue;  // keep the newest
    std::string name = f.nodeclaim;
    current_.failures.insert_or_assign(std::move(name), std::move(f));
  }
  TrimFailures();
  view_.reset();
}

void NodeClaimStore::AddFailure(NodeClaimFailure failure) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.failures.find(failure.nodeclaim);
  if (it != current_.failures.end() && (it->second == failure || it->second.at > failure.at)) {
    return;
  }
  std::string name = failure.nodeclaim;
  current_.failures.insert_or_assign(std::move(name), std::move(failure));
  TrimFailures();
  view_.reset();
}

void NodeClaimStore::TrimFailures() {
  auto& f = current_.failures;
  while (f.size() > kMaxFailures) {
    auto oldest = std::min_element(
        f.begin(), f.end(), [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
    f.erase(oldest);
  }
}

std::shared_ptr<const NodeClaimView> NodeClaimStore::View() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (view_ == nullptr) view_ = std::make_shared<const NodeClaimView>(current_);
  return view_;
}

size_t NodeClaimStore::Count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.claims.size();
}

size_t NodeClaimStore::FailureCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.failures.size();
}

}  // namespace podwait
