#include "exporter/common/shared_string.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace podwait {

// The table holds one reference to each value; a value only the table holds is swept. A
// reference is taken from the table only under its mutex, and otherwise only copied from a
// holder, so a value whose count is 1 under the mutex has no other holder and cannot get one.
struct SharedString::Rep {
  explicit Rep(std::string_view v) : value(v) {}
  std::atomic<size_t> refs{1};  // the table's
  const std::string value;
};

// The process-wide table of values. Never destroyed: records may outlive static destruction.
struct SharedStringTable {
  using Rep = SharedString::Rep;

  static SharedStringTable& Get() {
    static SharedStringTable* table = new SharedStringTable();
    return *table;
  }
  // REQUIRES: mu held. Drops the values only the table holds.
  void SweepLocked() {
    for (auto it = reps.begin(); it != reps.end();) {
      if (it->second->refs.load(std::memory_order_acquire) == 1) {
        delete it->second;
        it = reps.erase(it);
      } else {
        ++it;
      }
    }
    sweep_at = std::max<size_t>(1024, 2 * reps.size());
  }

  std::mutex mu;
  std::unordered_map<std::string_view, Rep*> reps;  // keys view the Rep's value
  size_t sweep_at = 1024;
};

const std::string& SharedString::str() const {
  static const std::string* const empty = new std::string();
  return rep_ != nullptr ? rep_->value : *empty;
}

SharedString::SharedString(std::string_view value) {
  if (value.empty()) return;
  SharedStringTable& table = SharedStringTable::Get();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.reps.find(value);
  if (it == table.reps.end()) {
    if (table.reps.size() >= table.sweep_at) table.SweepLocked();
    Rep* rep = new Rep(value);
    it = table.reps.emplace(rep->value, rep).first;
  }
  rep_ = it->second;
  rep_->refs.fetch_add(1, std::memory_order_relaxed);
}

SharedString::SharedString(const SharedString& other) : rep_(other.rep_) {
  if (rep_ != nullptr) rep_->refs.fetch_add(1, std::memory_order_relaxed);
}

SharedString& SharedString::operator=(const SharedString& other) {
  if (this != &other) {
    SharedString copy(other);
    std::swap(rep_, copy.rep_);
  }
  return *this;
}

SharedString& SharedString::operator=(SharedString&& other) noexcept {
  std::swap(rep_, other.rep_);
  return *this;
}

SharedString::~SharedString() {
  // Never the last reference (the table holds one): the value goes at a sweep.
  if (rep_ != nullptr) rep_->refs.fetch_sub(1, std::memory_order_release);
}

size_t SharedString::TableSize() {
  SharedStringTable& table = SharedStringTable::Get();
  std::lock_guard<std::mutex> lock(table.mu);
  return table.reps.size();
}

}  // namespace podwait
