// A pretrained checkpoint by content: what RunContext.pretrained_sha256 records, so that the
// analysis key tells a retrained checkpoint in the same folder from the one before it and takes
// two copies of one checkpoint in two folders as one setting.
#pragma once

#include <filesystem>
#include <string>

namespace jetchar::experiments {

/// "sha256:<hex>" over the bytes of `model_dir`'s config.json and then of `weights_file` (the one
/// the model loaded, hf_checkpoint.h's hf_weights_file), each preceded by its size so that no two
/// pairs of files hash alike. Torch-free. Throws std::runtime_error naming a file it cannot read.
std::string checkpoint_digest(const std::filesystem::path& model_dir, const std::filesystem::path& weights_file);

}  // namespace jetchar::experiments
