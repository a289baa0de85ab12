#include "experiments/training/squad_scoring.h"

#include <span>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jetchar::experiments {

void add_squad_logits(loaders::text::SquadPredictions& predictions, const torch::Tensor& logits,
                      std::int64_t first_sample) {
  if (logits.dim() != 3 || logits.size(2) != 2) {
    throw std::invalid_argument(
        fmt::format("SQuAD answers need logits [B,L,2] (start, end); got [{}]", fmt::join(logits.sizes(), ",")));
  }
  // [B, 2, L] on the CPU: each row's start and end logits are contiguous runs.
  const auto host = logits.detach().to(torch::kCPU, torch::kFloat).transpose(1, 2).contiguous();
  const auto rows = host.size(0);
  const auto length = static_cast<std::size_t>(host.size(2));
  const float* data = host.data_ptr<float>();
  for (std::int64_t row = 0; row < rows; ++row) {
    const float* start = data + static_cast<std::size_t>(row) * 2 * length;
    predictions.add(first_sample + row, std::span<const float>(start, length),
                    std::span<const float>(start + length, length));
  }
}

}  // namespace jetchar::experiments
