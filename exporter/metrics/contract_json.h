#pragma once

// `podwait-exporter contract`: the vocabulary (stages, classes, reasons, dependencies) and the
// metric table as one JSON document, for the dashboards generator and checker, the rules and
// the docs checks, which read it instead of keeping lists of their own.

#include <string>

namespace podwait {

std::string RenderContractJson();

}  // namespace podwait
