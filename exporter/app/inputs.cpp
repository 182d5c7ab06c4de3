#include "exporter/app/inputs.h"

#include <utility>

namespace podwait {

std::vector<std::unique_ptr<Reflector>> BuildInputReflectors(InputContext& ctx,
                                                             const KubeContext& kube,
                                                             OptionalInputs* optional) {
  std::vector<std::unique_ptr<Reflector>> reflectors;
  for (const InputSource& input : InputSources()) {
    const bool enabled = input.enabled(ctx);
    if (optional != nullptr) optional->AddInput(input.input, enabled);
    if (!enabled) continue;
    for (ReflectorOptions& o : input.reflectors(ctx.config)) {
      ReflectorHandler& handler = input.handler(ctx, o);
      reflectors.push_back(std::make_unique<Reflector>(kube, std::move(o), handler));
      if (optional != nullptr) optional->AddReflector(input.input, reflectors.back().get());
    }
  }
  return reflectors;
}

}  // namespace podwait
