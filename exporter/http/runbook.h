#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podwait {

// rules/RUNBOOK.md rendered to HTML at build time (exporter/http/runbook/main.cpp).
extern const std::string_view kRunbookFragment;

// GET /runbook: the runbook as a self-contained page; every alert's section keeps the anchor its
// runbook_url names (#podcapacityshortfall), every class a row anchor (#class-capacity).
const std::string& RunbookPage();

// Its headers: the same strict policy as the status page (nothing loads but its hashed style).
std::vector<std::pair<std::string, std::string>> RunbookPageHeaders();

}  // namespace podwait
