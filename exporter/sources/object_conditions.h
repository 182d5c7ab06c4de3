#pragma once

// The status.conditions of a custom resource (metav1.Condition: type, status, reason, message,
// lastTransitionTime) that podwait reads by type: Karpenter's NodeClaims, cluster-autoscaler's
// ProvisioningRequests.

#include <rapidjson/document.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "exporter/model/types.h"

namespace podwait {

// Pure: for each condition of `conditions` (an array, or nullptr) whose type is types[i], fills
// out[i] (status, reason and message cut to the given bytes, lastTransitionTime). Entries that
// are not objects, and types not listed, are skipped; out[i] of a type not present is left alone.
void ReadObjectConditions(const rapidjson::Value* conditions,
                          std::span<const std::string_view> types,
                          std::span<NodeClaimCondition> out, size_t max_reason, size_t max_message);

}  // namespace podwait
