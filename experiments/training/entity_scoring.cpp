#include "experiments/training/entity_scoring.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jetchar::experiments {

void add_entity_predictions(loaders::text::EntityEvaluator& evaluator, const torch::Tensor& logits,
                            const torch::Tensor& targets, const std::vector<std::string>& labels) {
  const auto predicted = logits.argmax(-1).to(torch::kCPU, torch::kLong).contiguous();
  const auto gold = targets.to(torch::kCPU, torch::kLong).contiguous();
  if (predicted.sizes() != gold.sizes() || gold.dim() != 2) {
    throw std::invalid_argument(
        fmt::format("entity scores need logits [B,L,labels] and targets [B,L]; got [{}] and [{}]",
                    fmt::join(logits.sizes(), ","), fmt::join(targets.sizes(), ",")));
  }
  const auto name = [&](std::int64_t id) -> const std::string& {
    if (id < 0 || id >= static_cast<std::int64_t>(labels.size())) {
      throw std::invalid_argument(
          fmt::format("label id {} has no name; the data set names {} labels", id, labels.size()));
    }
    return labels[static_cast<std::size_t>(id)];
  };
  const auto rows = gold.size(0);
  const auto columns = gold.size(1);
  const auto* gold_ids = gold.data_ptr<std::int64_t>();
  const auto* predicted_ids = predicted.data_ptr<std::int64_t>();
  for (std::int64_t row = 0; row < rows; ++row) {
    std::vector<std::string> gold_tags, predicted_tags;
    for (std::int64_t column = 0; column < columns; ++column) {
      const auto index = row * columns + column;
      if (gold_ids[index] == -100) continue;
      gold_tags.push_back(name(gold_ids[index]));
      predicted_tags.push_back(name(predicted_ids[index]));
    }
    evaluator.add(gold_tags, predicted_tags);
  }
}

}  // namespace jetchar::experiments
