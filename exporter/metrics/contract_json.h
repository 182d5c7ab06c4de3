#pragma once

// `podwait-exporter contract`: the vocabulary (stages, classes, reasons, dependencies), the
// metric table, the tidb-operator v2 kinds and the autoscalers with the resources they need, as
// one JSON document, for the dashboards generator and checker, the rules, the docs checks, the
// RBAC checks and the simulator's test, which read it instead of keeping lists of their own.

#include <string>

namespace podwait {

std::string RenderContractJson();

}  // namespace podwait
