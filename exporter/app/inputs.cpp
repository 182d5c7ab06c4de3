#include "exporter/app/inputs.h"

#include <utility>

namespace podwait {

std::vector<std::unique_ptr<Reflector>> BuildInputReflectors(InputContext& ctx,
                                                             const KubeContext& kube) {
  std::vector<std::unique_ptr<Reflector>> reflectors;
  for (const InputSource& input : InputSources()) {
    if (!input.enabled(ctx)) continue;
    for (ReflectorOptions& o : input.reflectors(ctx.config)) {
      ReflectorHandler& handler = input.handler(ctx, o);
      reflectors.push_back(std::make_unique<Reflector>(kube, std::move(o), handler));
    }
  }
  return reflectors;
}

}  // namespace podwait
