#include "loaders/image_decode.h"

#include <fmt/format.h>
#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>

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

// libjpeg reports errors through error_exit, which must not return: jump back to the decode
// call. Warnings (corrupt or truncated data) count as errors, as TurboJPEG's do.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_error_exit(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level < 0) jpeg_error_exit(cinfo);  // a warning: corrupt data
}

// Whether the bytes not yet consumed hold an end-of-image marker. Inside entropy-coded data 0xFF
// is always followed by 0x00 or a restart marker, so FF D9 there is the EOI (or follows it).
bool has_end_marker(const std::uint8_t* begin, const std::uint8_t* end) {
  for (const std::uint8_t* p = end; p - begin >= 2; --p) {
    if (p[-2] == 0xFF && p[-1] == 0xD9) return true;
  }
  return false;
}

// The region decode proper. Only plain C data lives in this frame while libjpeg may longjmp out
// of it (no destructors are skipped); the caller turns the outcome into a message.
bool decode_jpeg_region(const std::uint8_t* data, std::size_t size, int denominator, const ImageRegion& region,
                        DecodedImage& out, JpegErrors& errors) {
  jpeg_decompress_struct cinfo;
  cinfo.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_error_exit;
  errors.manager.emit_message = jpeg_emit_message;
  errors.message[0] = '\0';
  if (setjmp(errors.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.image_width == 0 || cinfo.image_height == 0 || cinfo.image_width > kMaxSide ||
      cinfo.image_height > kMaxSide) {
    std::snprintf(errors.message, sizeof errors.message, "JPEG size %ux%u outside 1..%d", cinfo.image_height,
                  cinfo.image_width, kMaxSide);
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = JCS_RGB;
  cinfo.dct_method = JDCT_IFAST;  // as TJFLAG_FASTDCT
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned>(denominator);
  jpeg_start_decompress(&cinfo);
  const int full_h = static_cast<int>(cinfo.image_height), full_w = static_cast<int>(cinfo.image_width);
  const int scaled_h = static_cast<int>(cinfo.output_height), scaled_w = static_cast<int>(cinfo.output_width);
  // The region at the decode scale, rounded outwards, at least one pixel, plus a border: the
  // fancy (smoothing) chroma upsampling replicates the edge of a cropped decode where a whole
  // decode would use the neighbours, so the pixels at the crop's own left/right/bottom edges can
  // differ. With 16 more columns each side (a 4:2:0 iMCU) and 2 more rows they lie outside the
  // region and the region's pixels are those of a whole decode.
  const int y0 = std::clamp(region.y0 / denominator, 0, scaled_h - 1);
  const int y1 = std::clamp((region.y1 + denominator - 1) / denominator + 2, y0 + 1, scaled_h);
  const int x0 = std::clamp(region.x0 / denominator - 16, 0, scaled_w - 1);
  const int x1 = std::clamp((region.x1 + denominator - 1) / denominator + 16, x0 + 1, scaled_w);
  JDIMENSION x_offset = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
  if (width < static_cast<JDIMENSION>(scaled_w)) jpeg_crop_scanline(&cinfo, &x_offset, &width);
  if (y0 > 0) jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(y0));
  const int rows = y1 - y0;
  const std::size_t row_bytes = static_cast<std::size_t>(cinfo.output_width) * 3;
  out.pixels.resize(row_bytes * static_cast<std::size_t>(rows));
  JSAMPROW pointers[16];
  while (static_cast<int>(cinfo.output_scanline) < y1) {
    const int done = static_cast<int>(cinfo.output_scanline) - y0;
    const int batch = std::min(16, rows - done);
    for (int i = 0; i < batch; ++i) pointers[i] = out.pixels.data() + static_cast<std::size_t>(done + i) * row_bytes;
    jpeg_read_scanlines(&cinfo, pointers, static_cast<JDIMENSION>(batch));
  }
  if (cinfo.output_scanline < cinfo.output_height) {
    // Stopping early: the rest is not read, so check it is not missing. The decoder may already
    // have read the end-of-image marker (it reads ahead to the next marker).
    if (cinfo.unread_marker != JPEG_EOI && !has_end_marker(cinfo.src->next_input_byte, data + size)) {
      std::snprintf(errors.message, sizeof errors.message,
                    "truncated JPEG data: no end-of-image marker after offset %zu",
                    static_cast<std::size_t>(cinfo.src->next_input_byte - data));
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
    jpeg_abort_decompress(&cinfo);
  } else {
    jpeg_finish_decompress(&cinfo);
  }
  jpeg_destroy_decompress(&cinfo);
  out.height = rows;
  out.width = static_cast<int>(width);
  out.full_height = full_h;
  out.full_width = full_w;
  out.scaled_height = scaled_h;
  out.scaled_width = scaled_w;
  out.offset_y = y0;
  out.offset_x = static_cast<int>(x_offset);
  return true;
}

}  // namespace

int jpeg_scale_denominator(double max_shrink) {
  int denominator = 1;
  while (denominator < 8 && max_shrink >= 2.0 * denominator - 1e-9) denominator *= 2;
  return denominator;
}

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
    const tjscalingfactor chosen{1, jpeg_scale_denominator(max_shrink)};
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
    out.height = out.scaled_height = scaled_h;
    out.width = out.scaled_width = scaled_w;
    out.full_height = height;
    out.full_width = width;
    out.offset_y = out.offset_x = 0;
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
    out.height = out.full_height = out.scaled_height = static_cast<int>(image.height);
    out.width = out.full_width = out.scaled_width = static_cast<int>(image.width);
    out.offset_y = out.offset_x = 0;
    return true;
  }
  int h = 0, w = 0;
  read_image_size(bytes, h, w, error);
  return false;
}

bool decode_image_region(std::span<const std::uint8_t> bytes, double max_shrink, const ImageRegion& region,
                         DecodedImage& out, std::string& error) {
  if (sniff_image_format(bytes) != ImageFormat::kJpeg) return decode_image(bytes, max_shrink, out, error);
  thread_local JpegErrors errors;
  if (!decode_jpeg_region(bytes.data(), bytes.size(), jpeg_scale_denominator(max_shrink), region, out, errors)) {
    error = errors.message[0] != '\0' ? fmt::format("corrupt JPEG data: {}", errors.message) : "corrupt JPEG data";
    return false;
  }
  return true;
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
