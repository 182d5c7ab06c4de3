#include "exporter/state/provisioning_request_store.h"

#include <utility>

namespace podwait {

void ProvisioningRequestStore::Replace(std::string_view scope,
                                       std::vector<ProvisioningRequestFacts> listed) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& all = current_.requests;
  for (auto it = all.begin(); it != all.end();) {
    it = scope.empty() || it->second.namespace_ == scope ? all.erase(it) : std::next(it);
  }
  for (ProvisioningRequestFacts& r : listed) {
    if (!scope.empty() && r.namespace_ != scope) continue;
    std::string key = r.Key();
    all.insert_or_assign(std::move(key), std::move(r));
  }
  view_.reset();
}

void ProvisioningRequestStore::Upsert(ProvisioningRequestFacts request) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = request.Key();
  auto it = current_.requests.find(key);
  if (it != current_.requests.end() && it->second == request) return;
  current_.requests.insert_or_assign(std::move(key), std::move(request));
  view_.reset();
}

void ProvisioningRequestStore::Remove(std::string_view namespace_, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = current_.requests.find(std::string(namespace_) + "/" + std::string(name));
  if (it == current_.requests.end()) return;
  current_.requests.erase(it);
  view_.reset();
}

std::shared_ptr<const ProvisioningRequestView> ProvisioningRequestStore::View() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (view_ == nullptr) view_ = std::make_shared<const ProvisioningRequestView>(current_);
  return view_;
}

size_t ProvisioningRequestStore::Count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_.requests.size();
}

}  // namespace podwait
