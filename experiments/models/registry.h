// Models by name, with the input each expects by default, so the CLI, the runners and the
// benchmarks build the same networks.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiments/models/network.h"

namespace jetchar::experiments {

struct ModelSpec {
  std::string name;
  std::string description;
  Task task;
  /// Per-sample input: {C, H, W} for images, {L} (sequence length) for token models.
  std::vector<std::int64_t> default_input;
  /// Output classes (labels) by default; 2 for question answering (start, end), the vocabulary for
  /// pretraining.
  std::int64_t default_classes;
  /// Token id range for synthetic token inputs; 0 for image models.
  std::int64_t vocab_size = 0;
  /// Builds the network with `num_classes` outputs (ignored for question answering; the vocabulary
  /// size for pretraining).
  std::function<std::shared_ptr<Network>(std::int64_t num_classes)> make;

  bool token_input() const { return task != Task::kImageClassification; }
  /// Masked-LM or ELECTRA pretraining: trains on a text corpus and predicts token ids.
  bool pretrains() const { return task == Task::kMaskedLanguageModeling || task == Task::kReplacedTokenDetection; }
  /// "1x28x28" or "seq 128".
  std::string input_description() const;
};

const std::vector<ModelSpec>& model_registry();
/// Throws std::invalid_argument naming the model and the valid names.
const ModelSpec& find_model(std::string_view name);
/// `num_classes` defaults to the spec's.
std::shared_ptr<Network> make_model(const ModelSpec& spec, std::optional<std::int64_t> num_classes = {});

/// A random minibatch in the model's input format (CPU), from `generator`'s seed: images
/// N(0,1), token ids in [1000, vocab), full attention masks, valid targets. Used by the inference
/// runner, the benchmarks and MAC counting. `input` overrides the per-sample default
/// (for token models: {sequence length}).
loaders::Batch synthetic_batch(const ModelSpec& spec, std::int64_t batch_size, std::int64_t num_classes,
                               const std::vector<std::int64_t>& input, std::uint64_t seed = 0);

/// Multiply-accumulates of one forward pass at the default input (conv + linear, counted from
/// their shapes without computing them: see mac_counter.h).
std::int64_t macs_per_sample(const ModelSpec& spec);
std::int64_t macs_per_sample(Network& model, const ModelSpec& spec, const std::vector<std::int64_t>& input);

}  // namespace jetchar::experiments
