#include "experiments/checkpoints/pretrained_vocab.h"

namespace jetchar::experiments {

void use_pretrained_vocab(loaders::DatasetSpec& spec, const std::filesystem::path& model_dir) {
  if ((spec.kind == "conll2003" || spec.kind == "squad" || spec.kind == "textcls" || spec.kind == "corpus") &&
      spec.options.count("vocab") == 0) {
    spec.options["vocab"] = (model_dir / "vocab.txt").string();
  }
}

}  // namespace jetchar::experiments
