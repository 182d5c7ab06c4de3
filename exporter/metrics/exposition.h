#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

namespace podwait {

inline constexpr const char* kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// Collects every collectable and renders the Prometheus text format (0.0.4). Label values are
// made valid UTF-8 (see common/utf8.h).
std::string RenderText(const std::vector<std::shared_ptr<const prometheus::Collectable>>& sources);

}  // namespace podwait
