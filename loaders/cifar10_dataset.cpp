#include "loaders/cifar10_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sysfs/error.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders {

std::vector<std::string> Cifar10Dataset::default_classes() {
  return {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
}

std::vector<std::string> parse_cifar_class_names(std::string_view text, const std::string& name) {
  std::vector<std::string> classes;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    ++line_number;
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty()) {
      if (end == text.size()) break;
      continue;
    }
    for (unsigned char c : line) {
      if (c < 0x20 || c == 0x7F) {
        throw sysfs::FormatError(name, line_number, fmt::format("byte {:#04x}", c),
                                 "printable class names, one per line");
      }
    }
    if (classes.size() == 256) {
      throw sysfs::FormatError(name, line_number, std::string(line), "at most 256 class names (labels are one byte)");
    }
    classes.emplace_back(line);
    if (end == text.size()) break;
  }
  if (classes.empty()) throw sysfs::FormatError(name, "no class names", "one class name per line");
  return classes;
}

std::string check_cifar_record(std::span<const std::uint8_t> record, std::size_t classes, const std::string& name,
                               std::uint64_t offset) {
  if (record.size() != kCifarRecordBytes) {
    return fmt::format("{} offset {}: short record of {} bytes, expected {}", name, offset, record.size(),
                       kCifarRecordBytes);
  }
  if (record[0] >= classes) {
    return fmt::format("{} offset {}: label {} is not a class id 0..{}", name, offset, record[0], classes - 1);
  }
  return {};
}

void check_cifar_file_size(std::uint64_t bytes, const std::string& name) {
  if (bytes == 0 || bytes % kCifarRecordBytes != 0) {
    throw sysfs::FormatError(
        fmt::format("{} offset {}", name, bytes / kCifarRecordBytes * kCifarRecordBytes),
        fmt::format("{} bytes", bytes),
        fmt::format("a whole number of {}-byte records (1 label + 3072 pixels); the last record is short",
                    kCifarRecordBytes));
  }
}

Cifar10Dataset::Cifar10Dataset(std::vector<std::filesystem::path> files, std::vector<std::string> classes,
                               std::string name, Transform transform)
    : transform_(std::move(transform)) {
  for (const auto& file : files) {
    readers_.emplace_back(file);
    check_cifar_file_size(readers_.back().size(), file.string());
    first_index_.push_back(count_);
    count_ += static_cast<std::int64_t>(readers_.back().size() / kCifarRecordBytes);
  }
  if (readers_.empty()) throw std::invalid_argument(fmt::format("{}: no CIFAR-10 batch files", name));
  const auto [out_h, out_w] = transform_.output_size(kCifarSide, kCifarSide);
  info_.name = std::move(name);
  info_.format = "cifar10-bin";
  info_.root = files.front().parent_path();
  info_.classes = std::move(classes);
  info_.layout.input_type = InputType::kFloat32;
  info_.layout.input_shape = {3, out_h, out_w};
  info_.layout.target_shape = {};
  info_.files = std::move(files);
  const auto meta = info_.root / "batches.meta.txt";
  if (std::filesystem::exists(meta)) info_.files.push_back(meta);
  info_.bytes = total_file_bytes(info_.files);
}

std::unique_ptr<Cifar10Dataset> Cifar10Dataset::open_dir(const std::filesystem::path& dir, const std::string& split,
                                                         Transform transform) {
  std::vector<std::filesystem::path> files;
  if (split == "train") {
    for (int i = 1; i <= 5; ++i) {
      const auto path = dir / fmt::format("data_batch_{}.bin", i);
      if (std::filesystem::exists(path)) files.push_back(path);
    }
  } else if (split == "test") {
    if (std::filesystem::exists(dir / "test_batch.bin")) files.push_back(dir / "test_batch.bin");
  } else {
    throw std::invalid_argument(
        fmt::format("{}: split '{}' is not valid; expected train or test", dir.string(), split));
  }
  if (files.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: no {} (a cifar-10-batches-bin directory)", dir.string(),
                    split == "train" ? "data_batch_1.bin .. data_batch_5.bin" : "test_batch.bin"));
  }
  std::vector<std::string> classes = default_classes();
  const auto meta = dir / "batches.meta.txt";
  if (std::filesystem::exists(meta)) {
    classes = parse_cifar_class_names(sysfs::read_whole_file(meta), meta.string());
  }
  return std::make_unique<Cifar10Dataset>(std::move(files), std::move(classes), "cifar10/" + split,
                                          std::move(transform));
}

SampleStatus Cifar10Dataset::get(std::int64_t index, Rng& rng, const SampleOut& out) const {
  if (index < 0 || index >= count_) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, count_ - 1));
  }
  const auto file = static_cast<std::size_t>(std::upper_bound(first_index_.begin(), first_index_.end(), index) -
                                             first_index_.begin() - 1);
  const std::uint64_t offset = static_cast<std::uint64_t>(index - first_index_[file]) * kCifarRecordBytes;
  thread_local std::vector<std::uint8_t> record;
  record.resize(kCifarRecordBytes);
  if (!readers_[file].read_at(offset, record)) {
    return SampleStatus::failure(fmt::format("{} offset {}: cannot read a {}-byte record (file changed or I/O error)",
                                             readers_[file].path().string(), offset, kCifarRecordBytes));
  }
  if (record[0] >= info_.classes.size()) {
    return SampleStatus::failure(
        check_cifar_record(record, info_.classes.size(), readers_[file].path().string(), offset));
  }
  const TransformPlan plan = transform_.plan(kCifarSide, kCifarSide, rng);
  if (!transform_.apply(plan, ImageView::planar(record.data() + 1, 3, kCifarSide, kCifarSide), out.input_f32)) {
    return SampleStatus::failure(
        fmt::format("{}: sample {} does not fit the output ({} values)", info_.name, index, out.input_f32.size()));
  }
  if (!out.target.empty()) out.target[0] = record[0];
  return SampleStatus::success(kCifarRecordBytes);
}

}  // namespace jetchar::loaders
