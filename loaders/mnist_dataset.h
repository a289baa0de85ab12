// MNIST-style data sets in IDX files (MNIST, Fashion-MNIST): an images file (u8, N x rows x cols)
// and a labels file (u8, N), raw or .gz. Raw image files are read per sample with pread (so page
// cache and storage effects are real); .gz files are inflated into memory once, as torchvision does.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/file_reader.h"
#include "loaders/transform.h"

namespace jetchar::loaders {

class MnistDataset : public Dataset {
 public:
  /// Opens a pair of IDX files and validates them (magic, shapes, sizes, equal counts, labels in
  /// range of `classes`). Throws sysfs::IoError / sysfs::FormatError naming the file and offset.
  MnistDataset(const std::filesystem::path& images, const std::filesystem::path& labels, std::string name,
               std::vector<std::string> classes, Transform transform);

  /// The files of `split` ("train" or "test", i.e. t10k) in `dir`, raw or .gz (raw preferred).
  /// `fashion` selects Fashion-MNIST's class names. Throws std::invalid_argument when absent.
  static std::unique_ptr<MnistDataset> open_dir(const std::filesystem::path& dir, const std::string& split,
                                                bool fashion, Transform transform);
  static std::vector<std::string> mnist_classes();
  static std::vector<std::string> fashion_mnist_classes();

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return count_; }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

  /// The label of sample `index` (validated at open).
  std::uint8_t label(std::int64_t index) const { return labels_[index]; }

 private:
  DatasetInfo info_;
  Transform transform_;
  std::int64_t count_ = 0;
  int rows_ = 0, cols_ = 0;
  std::uint64_t data_offset_ = 0;
  std::vector<std::uint8_t> labels_;
  std::shared_ptr<const std::vector<std::uint8_t>> images_;  // whole inflated file, when gzip-compressed
  std::optional<FileReader> reader_;  // raw images file
};

}  // namespace jetchar::loaders
