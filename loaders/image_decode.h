// JPEG (libjpeg-turbo, with its DCT-domain scaled decoding) and PNG (libpng) decoding of a file's
// bytes into 8-bit interleaved RGB. No exceptions: returns false and a message (hot path).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

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
};

/// Full size of an encoded image without decoding its pixels.
bool read_image_size(std::span<const std::uint8_t> bytes, int& height, int& width, std::string& error);

/// Decodes to RGB. For JPEG, picks the smallest libjpeg-turbo scaling factor (1/8 .. 1) that
/// still leaves the image at least 1 / max_shrink of its size, so nothing below the output
/// resolution is lost; PNG always decodes at full size. `error` names no file (the caller does).
bool decode_image(std::span<const std::uint8_t> bytes, double max_shrink, DecodedImage& out, std::string& error);

/// Encoders used by tests, fuzzers' seed corpora and the benchmark's data generator.
std::vector<std::uint8_t> encode_jpeg_rgb(const std::uint8_t* rgb, int height, int width, int quality);
std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* rgb, int height, int width);

}  // namespace jetchar::loaders
