#pragma once

// The reflectors of the exporter's inputs (sources/inputs.h): app/ wires each row's handlers,
// which write the Pipeline's input stores, to a reflector on the API server's client.

#include <memory>
#include <vector>

#include "exporter/app/optional_inputs.h"
#include "exporter/kube/reflector.h"
#include "exporter/sources/inputs.h"

namespace podwait {

// One reflector per enabled row of InputSources() and its reflector options, on `kube` (the
// exporter's, and `kubectl podwait`'s one read of the cluster). `optional`, when given, learns
// every optional input (enabled or not) and its reflectors.
std::vector<std::unique_ptr<Reflector>> BuildInputReflectors(InputContext& ctx,
                                                             const KubeContext& kube,
                                                             OptionalInputs* optional = nullptr);

}  // namespace podwait
