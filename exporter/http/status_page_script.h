#pragma once

#include <string_view>

namespace podwait {

// exporter/http/status_page.js, embedded at build time (exporter/http/embed_text.cmake): the
// status page's script, served inline and allowed by its SHA-256.
extern const std::string_view kStatusPageScript;

}  // namespace podwait
