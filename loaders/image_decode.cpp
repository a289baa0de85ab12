#include "loaders/image_decode.h"

#include <fmt/format.h>
#include <png.h>
#include <turbojpeg.h>

#include <cmath>
#include <cstring>
#include <memory>

namespace jetchar::loaders {
namespace {

// One TurboJPEG handle per thread: handles are not thread-safe, and creating one per image costs.
struct TjHandle {
  tjhandle handle = nullptr;
  explicit TjHandle(bool compress) : handle(compress ? tjInitCompress() : tjInitDecompress()) {}
  ~TjHandle() {
    if (handle != nullptr) tjDestroy(handle);
  }
};

TjHandle& decompressor_handle() {
  thread_local TjHandle handle(false);
  return handle;
}
tjhandle decompressor() { return decompressor_handle().handle; }
// After a failed decode the handle's libjpeg state can refuse the next image: start afresh.
void reset_decompressor() {
  TjHandle& handle = decompressor_handle();
  if (handle.handle != nullptr) tjDestroy(handle.handle);
  handle.handle = tjInitDecompress();
}

constexpr int kMaxSide = 1 << 15;  // reject absurd sizes before allocating

bool jpeg_size(std::span<const std::uint8_t> bytes, int& height, int& width, std::string& error) {
  int subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decompressor(), bytes.data(), static_cast<unsigned long>(bytes.size()), &width, &height,
                          &subsampling, &colorspace) != 0) {
    error = fmt::format("not a readable JPEG header: {}", tjGetErrorStr2(decompressor()));
    reset_decompressor();
    return false;
  }
  if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide) {
    error = fmt::format("JPEG size {}x{} outside 1..{}", width, height, kMaxSide);
    return false;
  }
  return true;
}

bool png_size(std::span<const std::uint8_t> bytes, int& height, int& width, std::string& error) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    error = fmt::format("not a readable PNG header: {}", image.message);
    return false;
  }
  height = static_cast<int>(image.height);
  width = static_cast<int>(image.width);
  png_image_free(&image);
  if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide) {
    error = fmt::format("PNG size {}x{} outside 1..{}", width, height, kMaxSide);
    return false;
  }
  return true;
}

}  // namespace

ImageFormat sniff_image_format(std::span<const std::uint8_t> bytes) {
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return ImageFormat::kJpeg;
  static constexpr std::uint8_t kPngMagic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPngMagic, 8) == 0) return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

bool read_image_size(std::span<const std::uint8_t> bytes, int& height, int& width, std::string& error) {
  switch (sniff_image_format(bytes)) {
    case ImageFormat::kJpeg: return jpeg_size(bytes, height, width, error);
    case ImageFormat::kPng: return png_size(bytes, height, width, error);
    case ImageFormat::kUnknown: break;
  }
  error = bytes.size() < 8 ? fmt::format("{} bytes is too short for an image", bytes.size())
                           : "neither JPEG (FF D8 FF) nor PNG (89 50 4E 47) magic";
  return false;
}

bool decode_image(std::span<const std::uint8_t> bytes, double max_shrink, DecodedImage& out, std::string& error) {
  const ImageFormat format = sniff_image_format(bytes);
  if (format == ImageFormat::kJpeg) {
    int height = 0, width = 0;
    if (!jpeg_size(bytes, height, width, error)) return false;
    // Scaling factors are sorted largest first; take the smallest one that still keeps
    // scale >= 1 / max_shrink (the output never samples below one decoded pixel per output pixel).
    int count = 0;
    const tjscalingfactor* factors = tjGetScalingFactors(&count);
    tjscalingfactor chosen{1, 1};
    const double min_scale = max_shrink > 1.0 ? 1.0 / max_shrink : 1.0;
    for (int i = 0; i < count; ++i) {
      const double scale = static_cast<double>(factors[i].num) / factors[i].denom;
      if (scale <= 1.0 && scale >= min_scale - 1e-9 &&
          scale < static_cast<double>(chosen.num) / chosen.denom) {
        chosen = factors[i];
      }
    }
    const int scaled_w = TJSCALED(width, chosen);
    const int scaled_h = TJSCALED(height, chosen);
    out.pixels.resize(static_cast<std::size_t>(scaled_w) * scaled_h * 3);
    if (tjDecompress2(decompressor(), bytes.data(), static_cast<unsigned long>(bytes.size()), out.pixels.data(),
                      scaled_w, 0, scaled_h, TJPF_RGB, TJFLAG_FASTDCT) != 0) {
      // Warnings too (premature end of data = a truncated file), as PIL refuses truncated images.
      error = fmt::format("corrupt JPEG data: {}", tjGetErrorStr2(decompressor()));
      reset_decompressor();
      return false;
    }
    out.height = scaled_h;
    out.width = scaled_w;
    out.full_height = height;
    out.full_width = width;
    return true;
  }
  if (format == ImageFormat::kPng) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
      error = fmt::format("not a readable PNG header: {}", image.message);
      return false;
    }
    if (image.width == 0 || image.height == 0 || image.width > kMaxSide || image.height > kMaxSide) {
      error = fmt::format("PNG size {}x{} outside 1..{}", image.width, image.height, kMaxSide);
      png_image_free(&image);
      return false;
    }
    image.format = PNG_FORMAT_RGB;
    out.pixels.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr)) {
      error = fmt::format("corrupt PNG data: {}", image.message);
      png_image_free(&image);
      return false;
    }
    out.height = out.full_height = static_cast<int>(image.height);
    out.width = out.full_width = static_cast<int>(image.width);
    return true;
  }
  int h = 0, w = 0;
  read_image_size(bytes, h, w, error);
  return false;
}

std::vector<std::uint8_t> encode_jpeg_rgb(const std::uint8_t* rgb, int height, int width, int quality) {
  thread_local TjHandle handle(true);
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(handle.handle, rgb, width, 0, height, TJPF_RGB, &jpeg, &size, TJSAMP_420, quality, 0) != 0) {
    throw std::runtime_error(fmt::format("JPEG encoding failed: {}", tjGetErrorStr2(handle.handle)));
  }
  std::vector<std::uint8_t> bytes(jpeg, jpeg + size);
  tjFree(jpeg);
  return bytes;
}

std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* rgb, int height, int width) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, rgb, 0, nullptr)) {
    throw std::runtime_error(fmt::format("PNG encoding failed: {}", image.message));
  }
  std::vector<std::uint8_t> bytes(size);
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, rgb, 0, nullptr)) {
    throw std::runtime_error(fmt::format("PNG encoding failed: {}", image.message));
  }
  bytes.resize(size);
  return bytes;
}

}  // namespace jetchar::loaders
