#include "experiments/models/model_work.h"

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

jetson::ModelWork count_model_work(Network& model, const ModelSpec& spec, const std::vector<std::int64_t>& input) {
  jetson::ModelWork work;
  {
    torch::NoGradGuard no_grad;
    const bool was_training = model.is_training();
    model.eval();
    const auto batch = synthetic_batch(spec, 1, spec.default_classes, input);
    MacCountScope scope(MacCounting::kShapesOnly);
    model.forward_batch(batch);
    model.train(was_training);
    work.forward_macs_per_sample = static_cast<double>(scope.macs());
    work.activations_per_sample = static_cast<double>(scope.output_elements());
    work.layers = static_cast<double>(scope.layers());
  }
  for (const auto& parameter : model.parameters()) {
    if (!parameter.requires_grad()) continue;
    work.parameters += static_cast<double>(parameter.numel());
    work.parameter_tensors += 1;
  }
  return work;
}

}  // namespace jetchar::experiments
