// Data set specifications as text, shared by the CLI, the training runner and experiment specs:
//
//   KIND[/SPLIT]:PATH[?KEY=VALUE&...]
//
//   fashion-mnist:/usr/share/datasets/fashion-mnist     mnist/test:DIR        cifar10:DIR
//   imagefolder:DIR       gld23k/test:DIR_OR_CSV        synthetic:3x32x32?samples=10000&classes=10
//   conll2003:DIR?vocab=vocab.txt&max_length=128        squad:train-v1.1.json?vocab=vocab.txt
//   corpus:wiki.txt?vocab=vocab.txt&max_length=128&mask_prob=0.15
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loaders/dataset.h"

namespace jetchar::loaders {

struct DatasetSpec {
  std::string kind;
  std::string split = "train";
  std::string path;  ///< file system path (for synthetic: the shape, e.g. 3x32x32)
  std::map<std::string, std::string> options;
  std::string text;  ///< as given

  /// Throws std::invalid_argument naming the text, the bad part and what is valid.
  static DatasetSpec parse(std::string_view text);
  /// The seed study's transform for this kind ("mnist", "cifar10", "gld23k", ...), empty for text/synthetic.
  std::string default_transform() const;
};

/// `text` as a spec when it starts with a known KIND, otherwise as a path whose kind is detected
/// from its contents (IDX files, CIFAR batches, a GLD-23k CSV, class sub-folders). Throws
/// std::invalid_argument when neither works.
DatasetSpec resolve_dataset_spec(std::string_view text);

/// Kinds with a one-line description.
std::vector<std::pair<std::string, std::string>> dataset_kinds();

/// Opens the data set, with `transform` (a name or step list, see Transform::parse) or the kind's
/// default. Throws std::invalid_argument, sysfs::IoError or sysfs::FormatError naming the input.
std::shared_ptr<Dataset> open_dataset(const DatasetSpec& spec, const std::optional<std::string>& transform = {});

}  // namespace jetchar::loaders
