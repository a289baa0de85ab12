#include "loaders/mnist_dataset.h"

#include <fmt/format.h>

#include <stdexcept>

#include "loaders/idx.h"
#include "loaders/inflated_file_cache.h"
#include "sysfs/error.h"

namespace jetchar::loaders {
namespace {

std::string shape_text(const IdxHeader& header) {
  std::string text;
  for (auto dim : header.dims) text += fmt::format("{}{}", text.empty() ? "" : "x", dim);
  return text;
}

}  // namespace

std::vector<std::string> MnistDataset::mnist_classes() { return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}; }

std::vector<std::string> MnistDataset::fashion_mnist_classes() {
  return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};
}

MnistDataset::MnistDataset(const std::filesystem::path& images, const std::filesystem::path& labels, std::string name,
                           std::vector<std::string> classes, Transform transform)
    : transform_(std::move(transform)) {
  // Labels: small, read whole and validated now.
  const std::vector<std::uint8_t> label_file = read_maybe_gzip(labels);
  const IdxHeader label_header = parse_idx_header(label_file, label_file.size(), labels.string());
  if (label_header.type != IdxType::kU8 || label_header.dims.size() != 1) {
    throw sysfs::FormatError(
        labels.string(),
        fmt::format("type {:#04x} shape {}", static_cast<int>(label_header.type), shape_text(label_header)),
        "an IDX labels file (magic 00 00 08 01: unsigned bytes, 1 dimension)");
  }
  labels_.assign(label_file.begin() + static_cast<std::ptrdiff_t>(label_header.data_offset), label_file.end());
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    if (labels_[i] >= classes.size()) {
      throw sysfs::FormatError(fmt::format("{} offset {} (label {})", labels.string(), label_header.data_offset + i, i),
                               std::to_string(labels_[i]), fmt::format("a class id 0..{}", classes.size() - 1));
    }
  }

  IdxHeader header;
  if (images.extension() == ".gz") {
    images_ = inflated_file(images);
    header = parse_idx_header(*images_, images_->size(), images.string());
  } else {
    reader_.emplace(images);
    std::vector<std::uint8_t> head(std::min<std::uint64_t>(reader_->size(), 4 + 4 * 255));
    if (!reader_->read_at(0, head)) throw sysfs::IoError(images.string(), "read", errno);
    header = parse_idx_header(head, reader_->size(), images.string());
  }
  if (header.type != IdxType::kU8 || header.dims.size() != 3 || header.dims[1] == 0 || header.dims[2] == 0) {
    throw sysfs::FormatError(images.string(),
                             fmt::format("type {:#04x} shape {}", static_cast<int>(header.type), shape_text(header)),
                             "an IDX images file (magic 00 00 08 03: unsigned bytes, N x rows x cols)");
  }
  if (header.dims[0] != labels_.size()) {
    throw sysfs::FormatError(images.string(), fmt::format("{} images", header.dims[0]),
                             fmt::format("as many images as {} has labels ({})", labels.string(), labels_.size()));
  }
  count_ = header.dims[0];
  rows_ = static_cast<int>(header.dims[1]);
  cols_ = static_cast<int>(header.dims[2]);
  data_offset_ = header.data_offset;

  const auto [out_h, out_w] = transform_.output_size(rows_, cols_);
  info_.name = std::move(name);
  info_.format = images.extension() == ".gz" ? "idx.gz" : "idx";
  info_.root = images.parent_path();
  info_.classes = std::move(classes);
  info_.layout.input_type = InputType::kFloat32;
  info_.layout.input_shape = {1, out_h, out_w};
  info_.layout.target_shape = {};
  info_.files = {images, labels};
  info_.bytes = total_file_bytes(info_.files);
}

std::unique_ptr<MnistDataset> MnistDataset::open_dir(const std::filesystem::path& dir, const std::string& split,
                                                     bool fashion, Transform transform) {
  if (split != "train" && split != "test") {
    throw std::invalid_argument(
        fmt::format("{}: split '{}' is not valid; expected train or test", dir.string(), split));
  }
  const std::string prefix = split == "train" ? "train" : "t10k";
  auto find = [&](const std::string& kind) {
    for (const char* suffix : {"", ".gz"}) {
      auto path = dir / fmt::format("{}-{}-ubyte{}", prefix, kind, suffix);
      if (std::filesystem::exists(path)) return path;
    }
    throw std::invalid_argument(fmt::format("{}: no {}-{}-ubyte or {}-{}-ubyte.gz (an MNIST-format directory)",
                                            dir.string(), prefix, kind, prefix, kind));
  };
  const auto images = find("images-idx3");
  const auto labels = find("labels-idx1");
  const std::string name = fmt::format("{}/{}", fashion ? "fashion-mnist" : "mnist", split);
  return std::make_unique<MnistDataset>(images, labels, name, fashion ? fashion_mnist_classes() : mnist_classes(),
                                        std::move(transform));
}

SampleStatus MnistDataset::get(std::int64_t index, Rng& rng, const SampleOut& out) const {
  if (index < 0 || index >= count_) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, count_ - 1));
  }
  const std::size_t item = static_cast<std::size_t>(rows_) * cols_;
  const std::uint64_t offset = data_offset_ + static_cast<std::uint64_t>(index) * item;
  const std::uint8_t* pixels = nullptr;
  thread_local std::vector<std::uint8_t> buffer;
  if (reader_) {
    buffer.resize(item);
    if (!reader_->read_at(offset, buffer)) {
      return SampleStatus::failure(fmt::format("{} offset {}: cannot read {} bytes (file changed or I/O error)",
                                               reader_->path().string(), offset, item));
    }
    pixels = buffer.data();
  } else {
    pixels = images_->data() + offset;
  }
  const TransformPlan plan = transform_.plan(rows_, cols_, rng);
  if (!transform_.apply(plan, ImageView::planar(pixels, 1, rows_, cols_), out.input_f32)) {
    return SampleStatus::failure(
        fmt::format("{}: sample {} does not fit the output ({} values)", info_.name, index, out.input_f32.size()));
  }
  if (!out.target.empty()) out.target[0] = labels_[index];
  return SampleStatus::success(item + 1);
}

}  // namespace jetchar::loaders
