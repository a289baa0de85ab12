#include "experiments/fetch_work.h"

namespace jetchar::experiments {

jetson::FetchWork count_fetch_work(const loaders::DatasetInfo& info, std::int64_t samples, int workers) {
  const auto& layout = info.layout;
  const bool tokens = layout.input_type == loaders::InputType::kInt64;
  // A token task's attention mask and segment ids are shaped as its ids and travel with them.
  const double tensors = 1.0 + (layout.has_attention_mask ? 1.0 : 0.0) + (layout.has_token_type_ids ? 1.0 : 0.0);
  jetson::FetchWork work;
  work.input_values = static_cast<double>(layout.input_elements()) * tensors;
  work.input_bytes = work.input_values * (tokens ? 8.0 : 4.0);
  work.stored_bytes = samples > 0 ? static_cast<double>(info.bytes) / static_cast<double>(samples) : 0.0;
  work.decodes_images = info.format == "imagefolder" || info.format == "gld23k";
  work.workers = workers;
  return work;
}

}  // namespace jetchar::experiments
