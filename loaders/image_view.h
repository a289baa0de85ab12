// A read-only view of an 8-bit image with arbitrary strides, so interleaved (HWC: JPEG, PNG) and
// planar (CHW: CIFAR-10) sources feed the same transform code without a copy.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jetchar::loaders {

struct ImageView {
  const std::uint8_t* data = nullptr;
  int channels = 0;
  int height = 0;
  int width = 0;
  std::ptrdiff_t channel_stride = 0;
  std::ptrdiff_t row_stride = 0;
  std::ptrdiff_t pixel_stride = 0;

  std::uint8_t at(int c, int y, int x) const { return data[c * channel_stride + y * row_stride + x * pixel_stride]; }

  static ImageView interleaved(const std::uint8_t* data, int height, int width, int channels) {
    return {data, channels, height, width, 1, static_cast<std::ptrdiff_t>(width) * channels, channels};
  }
  static ImageView planar(const std::uint8_t* data, int channels, int height, int width) {
    return {data, channels, height, width, static_cast<std::ptrdiff_t>(height) * width, width, 1};
  }
};

/// A rectangle of an image in pixels, [y0, y1) x [x0, x1).
struct ImageRegion {
  int y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};

}  // namespace jetchar::loaders
