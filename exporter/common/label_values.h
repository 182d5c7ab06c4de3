#pragma once

// Label values that come from outside (PD's API, a TidbCluster's or a v2 Instance's status) and
// name one of a few states: mapped to a fixed set, so that a PD or an object that reports 10,000
// made-up states makes one series ("other"), not 10,000.

#include <span>
#include <string_view>

namespace podwait {

// A TiKV store state as PD (state_name: Up, Disconnected, Down, Offline, Tombstone; node_state:
// Preparing, Serving, Removing, Removed), tidb-operator v1 (Up, Down, Offline, Tombstone) and
// v2 (Preparing, Serving, Removing, Removed) name it, or podwait's own "Unknown" for PD < 2.0's
// numeric states. Anything else is "other".
std::string_view StoreStateLabel(std::string_view state);
// The states StoreStateLabel keeps (`podwait-exporter contract` prints them).
std::span<const std::string_view> StoreStateLabels();

// Whether `name` is a DNS-1123 label (1-63 lower-case letters, digits and '-', starting and ending
// with a letter or digit), as every Kubernetes namespace name is.
bool IsDns1123Label(std::string_view name);

}  // namespace podwait
