// A pretrained model reads token ids of its own vocabulary: text data sets (CoNLL-2003, SQuAD, textcls,
// corpus)
// that name no vocab.txt take the model folder's.
#pragma once

#include <filesystem>

#include "loaders/dataset_spec.h"

namespace jetchar::experiments {

/// Sets `spec`'s vocab option to MODEL_DIR/vocab.txt for a text data set without one.
void use_pretrained_vocab(loaders::DatasetSpec& spec, const std::filesystem::path& model_dir);

}  // namespace jetchar::experiments
