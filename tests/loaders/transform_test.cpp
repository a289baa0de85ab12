#include "loaders/transform.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace jetchar::loaders {
namespace {

// A 1-channel image whose pixel (y, x) is 10 * y + x.
std::vector<std::uint8_t> ramp(int h, int w) {
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(h) * w);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) pixels[y * w + x] = static_cast<std::uint8_t>(10 * y + x);
  return pixels;
}

TEST(Transform, ToTensorIsBytesOver255) {
  const auto pixels = ramp(3, 4);
  Transform t;
  Rng rng(1);
  const auto plan = t.plan(3, 4, rng);
  std::vector<float> out(12);
  ASSERT_TRUE(t.apply(plan, ImageView::planar(pixels.data(), 1, 3, 4), out));
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(out[i], pixels[i] / 255.0F);
}

TEST(Transform, NormalizePerChannelOnInterleavedInput) {
  const std::vector<std::uint8_t> rgb{255, 0, 51, 0, 255, 102};  // 1x2 RGB
  const Transform t = Transform::parse("normalize=0.5:0:0.2/0.5:1:0.1");
  Rng rng(0);
  std::vector<float> out(6);
  ASSERT_TRUE(t.apply(t.plan(1, 2, rng), ImageView::interleaved(rgb.data(), 1, 2, 3), out));
  EXPECT_FLOAT_EQ(out[0], 1.0F);    // R, x=0: (1 - 0.5) / 0.5
  EXPECT_FLOAT_EQ(out[1], -1.0F);   // R, x=1
  EXPECT_FLOAT_EQ(out[2], 0.0F);    // G, x=0
  EXPECT_FLOAT_EQ(out[3], 1.0F);    // G, x=1
  EXPECT_NEAR(out[4], 0.0F, 1e-6);  // B, x=0: (0.2 - 0.2) / 0.1
  EXPECT_NEAR(out[5], 2.0F, 1e-5);  // B, x=1: (0.4 - 0.2) / 0.1
}

TEST(Transform, RandomCropWithPaddingShiftsAndZeroFills) {
  const auto pixels = ramp(4, 4);
  const Transform t = Transform::parse("random-crop=4:2");
  std::vector<float> out(16);
  bool saw_padding = false;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    const auto plan = t.plan(4, 4, rng);
    ASSERT_TRUE(t.apply(plan, ImageView::planar(pixels.data(), 1, 4, 4), out));
    // Offsets are integers in [-2, 2]; every output is a source pixel or padding (0).
    const int dx = static_cast<int>(plan.ax), dy = static_cast<int>(plan.ay);
    ASSERT_GE(dx, -2);
    ASSERT_LE(dx, 2);
    for (int y = 0; y < 4; ++y) {
      for (int x = 0; x < 4; ++x) {
        const int sy = y + dy, sx = x + dx;
        const bool inside = sy >= 0 && sy < 4 && sx >= 0 && sx < 4;
        saw_padding = saw_padding || !inside;
        EXPECT_FLOAT_EQ(out[y * 4 + x], inside ? pixels[sy * 4 + sx] / 255.0F : 0.0F) << seed;
      }
    }
  }
  EXPECT_TRUE(saw_padding);
}

TEST(Transform, FlipMirrorsRows) {
  const auto pixels = ramp(2, 3);
  const Transform t = Transform::parse("hflip=1");
  Rng rng(3);
  std::vector<float> out(6);
  ASSERT_TRUE(t.apply(t.plan(2, 3, rng), ImageView::planar(pixels.data(), 1, 2, 3), out));
  EXPECT_FLOAT_EQ(out[0], pixels[2] / 255.0F);
  EXPECT_FLOAT_EQ(out[2], pixels[0] / 255.0F);
  EXPECT_FLOAT_EQ(out[3], pixels[5] / 255.0F);
}

TEST(Transform, ResizeAveragesWhenShrinkingAndKeepsConstants) {
  // 2x downscale of a 2-periodic stripe pattern averages to the mean (anti-aliased), and a
  // constant image stays constant at any size.
  std::vector<std::uint8_t> stripes(8 * 8);
  for (int i = 0; i < 64; ++i) stripes[i] = (i % 2) ? 200 : 100;
  const Transform half = Transform::parse("resize=4x4");
  Rng rng(0);
  std::vector<float> out(16);
  ASSERT_TRUE(half.apply(half.plan(8, 8, rng), ImageView::planar(stripes.data(), 1, 8, 8), out));
  // Interior columns see a symmetric window; the border ones renormalize over the clamped window (as PIL).
  for (int y = 0; y < 4; ++y) {
    for (int x = 1; x < 3; ++x) EXPECT_NEAR(out[y * 4 + x], 150.0F / 255.0F, 1e-5);
    EXPECT_NEAR(out[y * 4], 250.0F / 1.75F / 255.0F, 1e-5);
  }
  std::vector<std::uint8_t> flat(5 * 7, 77);
  const Transform up = Transform::parse("resize=11x13");
  std::vector<float> big(11 * 13);
  ASSERT_TRUE(up.apply(up.plan(5, 7, rng), ImageView::planar(flat.data(), 1, 5, 7), big));
  for (float v : big) EXPECT_NEAR(v, 77.0F / 255.0F, 1e-5);
}

TEST(Transform, SmallerEdgeResizeAndCenterCrop) {
  const Transform t = Transform::parse("imagenet-eval");
  EXPECT_EQ(t.output_size(600, 800), (std::pair<int, int>{224, 224}));
  EXPECT_TRUE(t.has_fixed_output_size());
  EXPECT_EQ(Transform::parse("resize=256").output_size(600, 800), (std::pair<int, int>{256, 341}));
  EXPECT_FALSE(Transform::parse("resize=256").has_fixed_output_size());
}

TEST(Transform, Gld23kPipelineGivesSizeCutoutAndDeterminism) {
  const Transform t = Transform::parse("gld23k");
  std::vector<std::uint8_t> rgb(60 * 80 * 3, 255);  // white: normalized 1.0 everywhere but the cutout
  std::vector<float> a(3 * 224 * 224), b(a.size());
  Rng r1(9, 2, 5), r2(9, 2, 5);
  const auto plan = t.plan(60, 80, r1);
  ASSERT_TRUE(t.apply(plan, ImageView::interleaved(rgb.data(), 60, 80, 3), a));
  ASSERT_TRUE(t.apply(t.plan(60, 80, r2), ImageView::interleaved(rgb.data(), 60, 80, 3), b));
  EXPECT_EQ(a, b);
  const auto zeros = std::count(a.begin(), a.end(), 0.0F);
  const auto cut = (plan.cut_y1 - plan.cut_y0) * (plan.cut_x1 - plan.cut_x0);
  EXPECT_GT(cut, 0);
  EXPECT_LE(cut, 16 * 16);
  EXPECT_EQ(zeros, 3 * cut);
  for (float v : a) EXPECT_TRUE(v == 0.0F || std::abs(v - 1.0F) < 1e-4) << v;
}

TEST(Transform, ScaledSourceGivesTheSameGeometry) {
  // A plan re-expressed for a half-size source samples the same relative positions.
  const Transform t = Transform::parse("random-resized-crop=16");
  Rng rng(4);
  TransformPlan plan = t.plan(64, 64, rng);
  const double shrink = plan.max_source_shrink();
  EXPECT_GE(shrink, 1.0);
  TransformPlan half = plan;
  half.scale_source(0.5, 0.5);
  EXPECT_DOUBLE_EQ(half.bx, plan.bx * 0.5);
  EXPECT_DOUBLE_EQ(half.ay, plan.ay * 0.5);
}

TEST(Transform, ParseErrorsNameTheStepAndWhatIsValid) {
  for (const char* bad : {"", "blur=3", "resize=0", "random-crop=32:x", "normalize=0.5", "normalize=0.5/0", "hflip=2",
                          "cutout=-1", "resize=10x"}) {
    try {
      Transform::parse(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(Transform::parse("cifar10-augment").steps().size(), 3U);
  EXPECT_GE(Transform::known_names().size(), 5U);
}

TEST(Transform, ApplyRefusesAWrongOutputSize) {
  const auto pixels = ramp(2, 2);
  Transform t;
  Rng rng(0);
  std::vector<float> out(3);
  EXPECT_FALSE(t.apply(t.plan(2, 2, rng), ImageView::planar(pixels.data(), 1, 2, 2), out));
}

}  // namespace
}  // namespace jetchar::loaders
