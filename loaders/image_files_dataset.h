// Data sets of encoded image files (JPEG, PNG), one class per file: torchvision's ImageFolder layout
// (one sub-folder per class) and the GLD-23k layout (split CSV + <image_id>.jpg).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/transform.h"

namespace jetchar::loaders {

class ImageFilesDataset : public Dataset {
 public:
  struct Entry {
    std::filesystem::path path;
    std::int64_t class_id = 0;
  };

  /// The transform must fix the output size (files differ in size). Throws std::invalid_argument.
  ImageFilesDataset(std::vector<Entry> entries, std::vector<std::string> classes, DatasetInfo info,
                    Transform transform);

  /// torchvision ImageFolder: classes are the sorted sub-folder names of `dir`; samples are the files
  /// with an image extension (.jpg .jpeg .png, any case), sorted, in each. Throws std::invalid_argument.
  static std::unique_ptr<ImageFilesDataset> open_image_folder(const std::filesystem::path& dir, Transform transform);

  /// GLD-23k: `path` is a split CSV, or a directory holding one of
  /// data_user_dict/gld23k_user_dict_<split>.csv, gld23k_user_dict_<split>.csv, mini_gld_train_split.csv
  /// (train) / mini_gld_test.csv (test). Images: <image_id>.jpg in <dir>/<split>/, <dir>/images/ or <dir>.
  /// Every image must exist (checked now; the error names the CSV line).
  static std::unique_ptr<ImageFilesDataset> open_gld23k(const std::filesystem::path& path, const std::string& split,
                                                        Transform transform);

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return static_cast<std::int64_t>(entries_.size()); }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  DatasetInfo info_;
  Transform transform_;
  std::vector<Entry> entries_;
};

}  // namespace jetchar::loaders
