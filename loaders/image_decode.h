// JPEG (libjpeg-turbo, with its DCT-domain scaled decoding and, for crops, decoding of only the
// rows and iMCU columns a crop needs) and PNG (libpng) decoding of a file's bytes into 8-bit
// interleaved RGB. No exceptions: returns false and a message (hot path).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loaders/image_view.h"

namespace jetchar::loaders {

enum class ImageFormat { kUnknown, kJpeg, kPng };

/// From the first bytes (magic numbers), not the file name.
ImageFormat sniff_image_format(std::span<const std::uint8_t> bytes);

struct DecodedImage {
  std::vector<std::uint8_t> pixels;  ///< height x width x 3 (RGB); capacity is reused between decodes
  int height = 0;
  int width = 0;
  /// Size of the encoded image; larger than height/width when a scaled decode was used.
  int full_height = 0;
  int full_width = 0;
  /// Size of the whole image at the decode scale (= full size unless a scaled decode was used).
  int scaled_height = 0;
  int scaled_width = 0;
  /// Where `pixels` starts in the whole image at the decode scale (non-zero for a region decode).
  int offset_y = 0;
  int offset_x = 0;
};

/// Full size of an encoded image without decoding its pixels.
bool read_image_size(std::span<const std::uint8_t> bytes, int& height, int& width, std::string& error);

/// The JPEG scale denominator (1, 2, 4 or 8) for a decode that may shrink the image by up to
/// `max_shrink`: the largest whose 1/d keeps at least one decoded pixel per output pixel. Only the
/// powers of two: libjpeg-turbo has SIMD code for those, while its 3/8 .. 7/8 decodes run plain C
/// and are slower than a full-size decode (measured on 800x600 images: 7/8 took 1.8x as long).
int jpeg_scale_denominator(double max_shrink);

/// Decodes to RGB. For JPEG, decodes at 1/jpeg_scale_denominator(max_shrink) of the size, so
/// nothing below the output resolution is lost; PNG always decodes at full size. `error` names
/// no file (the caller does).
bool decode_image(std::span<const std::uint8_t> bytes, double max_shrink, DecodedImage& out, std::string& error);

/// decode_image() restricted to `region` (full-size pixels, clamped to the image): a JPEG decodes
/// only the rows down to the region's last and the iMCU columns covering it (rows above it are
/// entropy-decoded and skipped), so a random crop costs roughly its share of the image. The
/// result is larger than the region (a border and iMCU alignment) and equals a whole decode
/// inside the region; offset_y/offset_x say where it lies. A
/// JPEG whose data after the decoded rows has no end-of-image marker is refused as truncated,
/// as a full decode would. PNG decodes whole.
bool decode_image_region(std::span<const std::uint8_t> bytes, double max_shrink, const ImageRegion& region,
                         DecodedImage& out, std::string& error);

/// Encoders used by tests, fuzzers' seed corpora and the benchmark's data generator.
std::vector<std::uint8_t> encode_jpeg_rgb(const std::uint8_t* rgb, int height, int width, int quality);
std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* rgb, int height, int width);

}  // namespace jetchar::loaders
