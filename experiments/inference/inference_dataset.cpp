#include "experiments/inference/inference_dataset.h"

#include <set>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "experiments/checkpoints/pretrained_vocab.h"
#include "experiments/models/model_dataset_fit.h"

namespace jetchar::experiments {
namespace {

// KIND/SPLIT:PATH names its split; KIND:PATH and a bare path do not.
bool names_split(std::string_view text) {
  const auto colon = text.find(':');
  return colon != std::string_view::npos && text.substr(0, colon).find('/') != std::string_view::npos;
}

// squad:dev-v1.1.json names the file to query itself: a SQuAD file whose name has no "train"
// (the loader's "train" split reads PATH as given; its validation split looks for a dev file
// beside a training file).
bool names_squad_query_file(const loaders::DatasetSpec& spec) {
  const std::filesystem::path path(spec.path);
  return spec.kind == "squad" && std::filesystem::is_regular_file(path) &&
         path.filename().string().find("train") == std::string::npos;
}

}  // namespace

loaders::DatasetSpec inference_dataset_spec(std::string_view text, std::optional<std::int64_t> sequence_length,
                                            const std::optional<std::filesystem::path>& pretrained) {
  auto spec = loaders::resolve_dataset_spec(text);
  if (!names_split(text) && !names_squad_query_file(spec)) spec.split = "validation";
  static const std::set<std::string> kWindowed = {"squad", "conll2003", "textcls", "corpus"};
  if (sequence_length && kWindowed.count(spec.kind) > 0) {
    const std::string length = std::to_string(*sequence_length);
    if (const auto given = spec.options.find("max_length"); given != spec.options.end() && given->second != length) {
      throw std::invalid_argument(
          fmt::format("data set '{}': ?max_length={} differs from the sequence length {}; "
                      "give one of them, or both the same",
                      text, given->second, length));
    }
    spec.options["max_length"] = length;
  }
  if (pretrained) use_pretrained_vocab(spec, *pretrained);
  return spec;
}

std::shared_ptr<const loaders::Dataset> open_inference_dataset(std::string_view text, const ModelSpec& model,
                                                               std::optional<std::int64_t> sequence_length,
                                                               const std::optional<std::filesystem::path>& pretrained) {
  std::shared_ptr<const loaders::Dataset> dataset =
      loaders::open_dataset(inference_dataset_spec(text, sequence_length, pretrained));
  require_model_fits_dataset(model, dataset->info());
  return dataset;
}

}  // namespace jetchar::experiments
