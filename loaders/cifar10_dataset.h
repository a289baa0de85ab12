// CIFAR-10 binary batches (cifar-10-batches-bin): records of 1 label byte + 3 x 1024 bytes (R, G, B
// planes, 32 x 32 row-major), no delimiters; class names from batches.meta.txt. Records are read
// with pread per sample, so page-cache and storage effects are real.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/file_reader.h"
#include "loaders/transform.h"

namespace jetchar::loaders {

inline constexpr std::size_t kCifarRecordBytes = 3073;
inline constexpr int kCifarSide = 32;

/// Class names from the text of batches.meta.txt: one per line, blank lines ignored, at most
/// `max_classes` (labels are one byte). Throws sysfs::FormatError naming `name` and the line.
std::vector<std::string> parse_cifar_class_names(std::string_view text, const std::string& name);

/// Checks one record: returns an empty string, or an error naming `name`, the offset and the label.
std::string check_cifar_record(std::span<const std::uint8_t> record, std::size_t classes, const std::string& name,
                               std::uint64_t offset);

/// Checks the size of a batch file: a whole number of records, at least one.
void check_cifar_file_size(std::uint64_t bytes, const std::string& name);

class Cifar10Dataset : public Dataset {
 public:
  /// Opens `files` (in order) with `classes`. Throws sysfs::IoError/FormatError naming the file.
  Cifar10Dataset(std::vector<std::filesystem::path> files, std::vector<std::string> classes, std::string name,
                 Transform transform);
  /// `dir` holds data_batch_1..5.bin (split "train", those present, at least one) or test_batch.bin
  /// ("test"), and optionally batches.meta.txt. Throws std::invalid_argument when none is there.
  static std::unique_ptr<Cifar10Dataset> open_dir(const std::filesystem::path& dir, const std::string& split,
                                                  Transform transform);
  static std::vector<std::string> default_classes();

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return count_; }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

 private:
  DatasetInfo info_;
  Transform transform_;
  std::vector<FileReader> readers_;
  std::vector<std::int64_t> first_index_;  // first sample index of each file
  std::int64_t count_ = 0;
};

}  // namespace jetchar::loaders
