// JPEG/PNG decoding (with a scaled JPEG decode chosen by the first byte) followed by the gld23k
// transform on whatever decoded; then the region decode of the part the transform samples, as
// the image-folder reader does, with the transform on that.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loaders/image_decode.h"
#include "loaders/transform.h"

using namespace jetchar::loaders;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const Transform transform = Transform::parse("random-resized-crop=32,hflip,normalize=0.5/0.5,cutout=8");
  const double shrink = 1.0 + (data[0] % 16) / 2.0;
  const std::span<const std::uint8_t> bytes(data + 1, size - 1);
  std::string error;
  int height = 0, width = 0;
  if (!read_image_size(bytes, height, width, error)) {
    if (error.empty()) __builtin_trap();
    return 0;
  }
  DecodedImage image;
  if (!decode_image(bytes, shrink, image, error)) return 0;
  if (image.pixels.size() != static_cast<std::size_t>(image.height) * image.width * 3) __builtin_trap();
  Rng rng(data[0]);
  TransformPlan plan = transform.plan(image.full_height, image.full_width, rng);
  plan.scale_source(static_cast<double>(image.height) / image.full_height,
                    static_cast<double>(image.width) / image.full_width);
  std::vector<float> out(3 * 32 * 32);
  if (!transform.apply(plan, ImageView::interleaved(image.pixels.data(), image.height, image.width, 3), out)) {
    __builtin_trap();
  }
  // The reader's path: decode only the sampled region (rows/iMCU columns of a JPEG).
  TransformPlan region_plan = transform.plan(height, width, rng);
  const ImageRegion region = region_plan.source_region(height, width);
  if (region.y0 < 0 || region.y1 > height || region.y0 >= region.y1 || region.x0 < 0 || region.x1 > width ||
      region.x0 >= region.x1) {
    __builtin_trap();
  }
  DecodedImage part;
  if (!decode_image_region(bytes, shrink, region, part, error)) return 0;
  if (part.pixels.size() != static_cast<std::size_t>(part.height) * part.width * 3 || part.height < 1 ||
      part.width < 1 || part.offset_y < 0 || part.offset_x < 0 || part.offset_y + part.height > part.scaled_height ||
      part.offset_x + part.width > part.scaled_width || part.full_height != height || part.full_width != width) {
    __builtin_trap();
  }
  region_plan.scale_source(static_cast<double>(part.scaled_height) / height,
                           static_cast<double>(part.scaled_width) / width);
  region_plan.shift_source(part.offset_y, part.offset_x);
  if (!transform.apply(region_plan, ImageView::interleaved(part.pixels.data(), part.height, part.width, 3), out)) {
    __builtin_trap();
  }
  return 0;
}
