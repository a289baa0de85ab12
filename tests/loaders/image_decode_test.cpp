#include "loaders/image_decode.h"
#include "tests/loaders/data_file_bytes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace jetchar::loaders {
namespace {

TEST(ImageDecode, JpegAndPngRoundTripWithScaledJpeg) {
  const auto rgb = solid_rgb(64, 96, 200, 100, 50);
  const auto jpeg = encode_jpeg_rgb(rgb.data(), 64, 96, 95);
  const auto png = encode_png_rgb(rgb.data(), 64, 96);
  EXPECT_EQ(sniff_image_format(jpeg), ImageFormat::kJpeg);
  EXPECT_EQ(sniff_image_format(png), ImageFormat::kPng);
  DecodedImage image;
  std::string error;
  ASSERT_TRUE(decode_image(png, 1.0, image, error)) << error;
  EXPECT_EQ(image.pixels, rgb);
  ASSERT_TRUE(decode_image(jpeg, 1.0, image, error)) << error;
  EXPECT_EQ(image.width, 96);
  EXPECT_NEAR(image.pixels[0], 200, 3);
  ASSERT_TRUE(decode_image(jpeg, 4.0, image, error)) << error;  // 1/4 scale allowed
  EXPECT_EQ(image.width, 24);
  EXPECT_EQ(image.height, 16);
  EXPECT_EQ(image.full_width, 96);
  ASSERT_TRUE(decode_image(jpeg, 3.0, image, error)) << error;  // powers of two only: 1/2 -> 48 wide
  EXPECT_EQ(image.width, 48);
  EXPECT_EQ(image.scaled_width, 48);
  EXPECT_EQ(image.offset_x, 0);
}

TEST(ImageDecode, CorruptAndTruncatedInputAreErrors) {
  const auto rgb = solid_rgb(32, 32, 1, 2, 3);
  auto jpeg = encode_jpeg_rgb(rgb.data(), 32, 32, 90);
  jpeg.resize(jpeg.size() / 2);
  DecodedImage image;
  std::string error;
  EXPECT_FALSE(decode_image(jpeg, 1.0, image, error));
  EXPECT_FALSE(error.empty());
  auto png = encode_png_rgb(rgb.data(), 32, 32);
  png.resize(png.size() - 20);
  error.clear();
  EXPECT_FALSE(decode_image(png, 1.0, image, error));
  EXPECT_NE(error.find("PNG"), std::string::npos) << error;
  const std::vector<std::uint8_t> text{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  EXPECT_FALSE(decode_image(text, 1.0, image, error));
  EXPECT_NE(error.find("magic"), std::string::npos) << error;
}

TEST(ImageDecode, SizeWithoutDecodingAndBufferReuse) {
  const auto rgb = solid_rgb(48, 80, 10, 20, 30);
  const auto jpeg = encode_jpeg_rgb(rgb.data(), 48, 80, 90);
  int height = 0, width = 0;
  std::string error;
  ASSERT_TRUE(read_image_size(jpeg, height, width, error)) << error;
  EXPECT_EQ(height, 48);
  EXPECT_EQ(width, 80);
  const auto png = encode_png_rgb(rgb.data(), 48, 80);
  ASSERT_TRUE(read_image_size(png, height, width, error)) << error;
  EXPECT_EQ(width, 80);
  EXPECT_FALSE(read_image_size(std::vector<std::uint8_t>{0xFF, 0xD8}, height, width, error));
  EXPECT_NE(error.find("2 bytes is too short"), std::string::npos) << error;
  // A decode into a buffer that held a bigger image reuses it and reports the new size.
  DecodedImage image;
  ASSERT_TRUE(decode_image(jpeg, 1.0, image, error)) << error;
  const auto* data = image.pixels.data();
  ASSERT_TRUE(decode_image(jpeg, 2.0, image, error)) << error;
  EXPECT_EQ(image.width, 40);
  EXPECT_EQ(image.height, 24);
  EXPECT_EQ(image.pixels.size(), 40U * 24U * 3U);
  EXPECT_EQ(image.pixels.data(), data);
  // After a failed decode the next good one works (fresh decompressor).
  auto broken = jpeg;
  broken.resize(broken.size() / 3);
  EXPECT_FALSE(decode_image(broken, 1.0, image, error));
  ASSERT_TRUE(decode_image(jpeg, 1.0, image, error)) << error;
  EXPECT_NEAR(image.pixels[1], 20, 3);
}

TEST(ImageDecode, ScaleDenominatorsArePowersOfTwo) {
  EXPECT_EQ(jpeg_scale_denominator(0.5), 1);
  EXPECT_EQ(jpeg_scale_denominator(1.0), 1);
  EXPECT_EQ(jpeg_scale_denominator(1.99), 1);
  EXPECT_EQ(jpeg_scale_denominator(2.0), 2);
  EXPECT_EQ(jpeg_scale_denominator(3.9), 2);
  EXPECT_EQ(jpeg_scale_denominator(4.0), 4);
  EXPECT_EQ(jpeg_scale_denominator(7.9), 4);
  EXPECT_EQ(jpeg_scale_denominator(8.0), 8);
  EXPECT_EQ(jpeg_scale_denominator(300.0), 8);
}

// A gradient with texture, so every pixel differs from its neighbours.
std::vector<std::uint8_t> textured_rgb(int h, int w) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(h) * w * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) {
        rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>((x * 3 + y * 2 + c * 40 + (x * y) % 7) % 256);
      }
    }
  }
  return rgb;
}

TEST(ImageDecode, RegionDecodeMatchesTheWholeImageWhereItOverlaps) {
  const int h = 128, w = 160;
  const auto rgb = textured_rgb(h, w);
  const auto jpeg = encode_jpeg_rgb(rgb.data(), h, w, 92);
  DecodedImage whole, part;
  std::string error;
  for (const double shrink : {1.0, 2.0}) {
    ASSERT_TRUE(decode_image(jpeg, shrink, whole, error)) << error;
    const ImageRegion region{40, 80, 50, 90};
    ASSERT_TRUE(decode_image_region(jpeg, shrink, region, part, error)) << error;
    const int d = shrink == 1.0 ? 1 : 2;
    EXPECT_EQ(part.full_height, h);
    EXPECT_EQ(part.full_width, w);
    EXPECT_EQ(part.scaled_height, h / d);
    EXPECT_EQ(part.scaled_width, w / d);
    // From the region's first row, a little beyond its last; columns widened to whole iMCUs (16
    // pixels for 4:2:0 at full scale) with a border each side.
    EXPECT_EQ(part.offset_y, 40 / d);
    EXPECT_GE(part.offset_y + part.height, 80 / d);
    EXPECT_LE(part.offset_y + part.height, 80 / d + 2);
    EXPECT_LE(part.offset_x, 50 / d);
    EXPECT_GE(part.offset_x + part.width, 90 / d);
    EXPECT_LT(part.width, part.scaled_width) << "only the columns of the region";
    EXPECT_EQ(part.offset_x % (16 / d), 0);
    ASSERT_EQ(part.pixels.size(), static_cast<std::size_t>(part.height) * part.width * 3);
    int worst = 0;
    for (int y = 40 / d; y < 80 / d; ++y) {
      for (int x = 50 / d; x < 90 / d; ++x) {
        for (int c = 0; c < 3; ++c) {
          const int a =
              part.pixels[(static_cast<std::size_t>(y - part.offset_y) * part.width + (x - part.offset_x)) * 3 + c];
          const int b = whole.pixels[(static_cast<std::size_t>(y) * whole.width + x) * 3 + c];
          worst = std::max(worst, std::abs(a - b));
        }
      }
    }
    EXPECT_EQ(worst, 0) << "shrink " << shrink << ": the region decodes as in a whole decode";
  }
  // A region reaching the last row decodes to the end; a PNG decodes whole.
  ASSERT_TRUE(decode_image_region(jpeg, 1.0, ImageRegion{100, 128, 0, 160}, part, error)) << error;
  EXPECT_EQ(part.height, 28);
  EXPECT_EQ(part.width, 160);
  const auto png = encode_png_rgb(rgb.data(), h, w);
  ASSERT_TRUE(decode_image_region(png, 4.0, ImageRegion{1, 2, 3, 4}, part, error)) << error;
  EXPECT_EQ(part.height, h);
  EXPECT_EQ(part.offset_x, 0);
  EXPECT_EQ(part.pixels, rgb);
}

TEST(ImageDecode, RegionDecodeRefusesTruncatedAndCorruptFiles) {
  const auto rgb = textured_rgb(128, 160);
  const auto jpeg = encode_jpeg_rgb(rgb.data(), 128, 160, 92);
  DecodedImage part;
  std::string error;
  // Cut in the rows below the region: those rows are never decoded, but the missing end is seen.
  auto truncated = jpeg;
  truncated.resize(jpeg.size() * 9 / 10);
  EXPECT_FALSE(decode_image_region(truncated, 1.0, ImageRegion{0, 16, 0, 16}, part, error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // Cut inside the region.
  truncated.resize(jpeg.size() / 4);
  error.clear();
  EXPECT_FALSE(decode_image_region(truncated, 1.0, ImageRegion{64, 128, 0, 160}, part, error));
  EXPECT_NE(error.find("JPEG"), std::string::npos) << error;
  // A broken header.
  auto broken = jpeg;
  broken.resize(40);
  error.clear();
  EXPECT_FALSE(decode_image_region(broken, 1.0, ImageRegion{0, 8, 0, 8}, part, error));
  EXPECT_NE(error.find("corrupt JPEG data"), std::string::npos) << error;
  // And the next good image decodes.
  ASSERT_TRUE(decode_image_region(jpeg, 1.0, ImageRegion{0, 8, 0, 8}, part, error)) << error;
  EXPECT_EQ(part.offset_y, 0);
}

}  // namespace
}  // namespace jetchar::loaders
