#include "loaders/image_files_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "loaders/file_reader.h"
#include "loaders/gld_csv.h"
#include "loaders/image_decode.h"
#include "sysfs/error.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders {
namespace {

bool has_image_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

}  // namespace

ImageFilesDataset::ImageFilesDataset(std::vector<Entry> entries, std::vector<std::string> classes, DatasetInfo info,
                                     Transform transform)
    : info_(std::move(info)), transform_(std::move(transform)), entries_(std::move(entries)) {
  if (!transform_.has_fixed_output_size()) {
    throw std::invalid_argument(fmt::format(
        "{}: transform '{}' does not fix the output size; images differ in size, so use one that ends with a "
        "crop or a HxW resize (e.g. gld23k, imagenet-eval, random-resized-crop=224)",
        info_.root.string(), transform_.name()));
  }
  if (entries_.empty()) throw std::invalid_argument(fmt::format("{}: no images", info_.root.string()));
  const auto [out_h, out_w] = transform_.output_size(1, 1);
  info_.classes = std::move(classes);
  info_.layout.input_type = InputType::kFloat32;
  info_.layout.input_shape = {3, out_h, out_w};
  info_.layout.target_shape = {};
  info_.files.clear();
  info_.files.reserve(entries_.size());
  for (const auto& entry : entries_) info_.files.push_back(entry.path);
  info_.bytes = total_file_bytes(info_.files);
}

std::unique_ptr<ImageFilesDataset> ImageFilesDataset::open_image_folder(const std::filesystem::path& dir,
                                                                        Transform transform) {
  if (!std::filesystem::is_directory(dir)) {
    throw std::invalid_argument(
        fmt::format("{}: not a directory (an image folder has one sub-folder per class)", dir.string()));
  }
  std::vector<std::string> classes;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_directory()) classes.push_back(entry.path().filename().string());
  }
  std::sort(classes.begin(), classes.end());
  std::vector<Entry> entries;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / classes[c])) {
      if (entry.is_regular_file() && has_image_extension(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (auto& file : files) entries.push_back({std::move(file), static_cast<std::int64_t>(c)});
  }
  if (entries.empty()) {
    throw std::invalid_argument(fmt::format("{}: no .jpg/.jpeg/.png files in class sub-folders ({} sub-folders)",
                                            dir.string(), classes.size()));
  }
  DatasetInfo info;
  info.name = "imagefolder:" + dir.filename().string();
  info.format = "imagefolder";
  info.root = dir;
  return std::make_unique<ImageFilesDataset>(std::move(entries), std::move(classes), std::move(info),
                                             std::move(transform));
}

std::unique_ptr<ImageFilesDataset> ImageFilesDataset::open_gld23k(const std::filesystem::path& path,
                                                                  const std::string& split, Transform transform) {
  if (split != "train" && split != "test") {
    throw std::invalid_argument(
        fmt::format("{}: split '{}' is not valid; expected train or test", path.string(), split));
  }
  std::filesystem::path csv;
  std::filesystem::path dir;
  if (std::filesystem::is_regular_file(path)) {
    csv = path;
    dir = path.parent_path();
  } else {
    dir = path;
    const std::vector<std::filesystem::path> candidates{
        dir / "data_user_dict" / fmt::format("gld23k_user_dict_{}.csv", split),
        dir / fmt::format("gld23k_user_dict_{}.csv", split),
        dir / (split == "train" ? "mini_gld_train_split.csv" : "mini_gld_test.csv")};
    for (const auto& candidate : candidates) {
      if (std::filesystem::is_regular_file(candidate)) {
        csv = candidate;
        break;
      }
    }
    if (csv.empty()) {
      throw std::invalid_argument(fmt::format("{}: no GLD-23k {} CSV (looked for {}, {}, {})", dir.string(), split,
                                              candidates[0].string(), candidates[1].string(), candidates[2].string()));
    }
    if (csv.parent_path().filename() == "data_user_dict") dir = csv.parent_path().parent_path();
  }
  const std::vector<GldRecord> records = parse_gld_csv(sysfs::read_whole_file(csv), csv.string());
  const std::vector<std::filesystem::path> image_dirs{dir / split, dir / "images", dir};
  std::vector<Entry> entries;
  entries.reserve(records.size());
  std::int64_t max_class = -1;
  for (const auto& record : records) {
    std::filesystem::path found;
    for (const auto& image_dir : image_dirs) {
      auto candidate = image_dir / (record.image_id + ".jpg");
      if (std::filesystem::is_regular_file(candidate)) {
        found = std::move(candidate);
        break;
      }
    }
    if (found.empty()) {
      throw sysfs::FormatError(csv.string(), record.line, record.image_id,
                               fmt::format("an image {}.jpg in {}, {} or {}", record.image_id, image_dirs[0].string(),
                                           image_dirs[1].string(), image_dirs[2].string()));
    }
    entries.push_back({std::move(found), record.class_id});
    max_class = std::max(max_class, record.class_id);
  }
  if (entries.empty()) throw sysfs::FormatError(csv.string(), "no records", "at least one image record");
  std::vector<std::string> classes;
  for (std::int64_t c = 0; c <= max_class; ++c) classes.push_back(std::to_string(c));
  DatasetInfo info;
  info.name = "gld23k/" + split;
  info.format = "gld23k";
  info.root = dir;
  auto dataset = std::make_unique<ImageFilesDataset>(std::move(entries), std::move(classes), std::move(info),
                                                     std::move(transform));
  dataset->info_.files.push_back(csv);
  dataset->info_.bytes = total_file_bytes(dataset->info_.files);
  return dataset;
}

SampleStatus ImageFilesDataset::get(std::int64_t index, Rng& rng, const SampleOut& out) const {
  if (index < 0 || index >= size()) {
    return SampleStatus::failure(fmt::format("{}: sample {} out of range 0..{}", info_.name, index, size() - 1));
  }
  const Entry& entry = entries_[index];
  thread_local std::vector<std::uint8_t> bytes;
  thread_local DecodedImage image;
  std::string error;
  if (!read_whole_file(entry.path, bytes, error)) return SampleStatus::failure(std::move(error));
  int height = 0, width = 0;
  if (!read_image_size(bytes, height, width, error)) {
    return SampleStatus::failure(fmt::format("{}: {}", entry.path.string(), error));
  }
  TransformPlan plan = transform_.plan(height, width, rng);
  // Decode only what the output samples (a random crop is on average about half the image), at
  // the smallest JPEG scale that keeps a decoded pixel per output pixel; then express the plan in
  // the decoded pixels.
  if (!decode_image_region(bytes, plan.max_source_shrink(), plan.source_region(height, width), image, error)) {
    return SampleStatus::failure(fmt::format("{}: {}", entry.path.string(), error));
  }
  if (image.scaled_width != width || image.scaled_height != height) {
    plan.scale_source(static_cast<double>(image.scaled_height) / height,
                      static_cast<double>(image.scaled_width) / width);
  }
  plan.shift_source(image.offset_y, image.offset_x);
  if (!transform_.apply(plan, ImageView::interleaved(image.pixels.data(), image.height, image.width, 3),
                        out.input_f32)) {
    return SampleStatus::failure(fmt::format("{}: sample {} does not fit the output ({} values)", entry.path.string(),
                                             index, out.input_f32.size()));
  }
  if (!out.target.empty()) out.target[0] = entry.class_id;
  return SampleStatus::success(bytes.size());
}

}  // namespace jetchar::loaders
