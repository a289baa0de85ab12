#include "loaders/image_files_dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "loaders/dataset_spec.h"
#include "loaders/image_decode.h"
#include "sysfs/error.h"
#include "tests/loaders/data_file_bytes.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;

TEST(ImageFilesDataset, ImageFolderClassesFromSortedSubfolders) {
  TempDir dir;
  const auto red = solid_rgb(40, 50, 255, 0, 0);
  const auto blue = solid_rgb(30, 30, 0, 0, 255);
  write_bytes(dir.path() / "b_blue" / "1.png", encode_png_rgb(blue.data(), 30, 30));
  write_bytes(dir.path() / "a_red" / "x.jpg", encode_jpeg_rgb(red.data(), 40, 50, 95));
  write_bytes(dir.path() / "a_red" / "y.JPEG", encode_jpeg_rgb(red.data(), 40, 50, 95));
  dir.write("a_red/notes.txt", "not an image");
  auto dataset = ImageFilesDataset::open_image_folder(dir.path(), Transform::parse("resize=8x8"));
  EXPECT_EQ(dataset->size(), 3);
  EXPECT_EQ(dataset->info().classes, (std::vector<std::string>{"a_red", "b_blue"}));
  EXPECT_EQ(dataset->info().layout.input_shape, (std::vector<std::int64_t>{3, 8, 8}));
  std::vector<float> out(3 * 64);
  std::int64_t target = -1;
  Rng rng(0);
  ASSERT_TRUE(dataset->get(2, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 1);
  EXPECT_NEAR(out[0], 0.0F, 1e-5);       // R plane of blue
  EXPECT_NEAR(out[2 * 64], 1.0F, 1e-5);  // B plane
  ASSERT_TRUE(dataset->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 0);
  EXPECT_NEAR(out[0], 1.0F, 0.03F);
  // A variable-size transform is refused for a folder of images.
  EXPECT_THROW(ImageFilesDataset::open_image_folder(dir.path(), Transform::parse("mnist")), std::invalid_argument);
}

TEST(ImageFilesDataset, CorruptImageIsASampleErrorNamingTheFile) {
  TempDir dir;
  dir.write("cls/broken.jpg", std::string("\xFF\xD8\xFF\xE0 truncated", 14));
  auto dataset = ImageFilesDataset::open_image_folder(dir.path(), Transform::parse("gld23k"));
  std::vector<float> out(3 * 224 * 224);
  std::int64_t target = 0;
  Rng rng(0);
  const SampleStatus status = dataset->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}});
  EXPECT_FALSE(status.ok);
  EXPECT_NE(status.error.find("broken.jpg"), std::string::npos) << status.error;
}

TEST(ImageFilesDataset, Gld23kLayoutAndMissingImage) {
  TempDir dir;
  const auto rgb = solid_rgb(60, 80, 10, 20, 30);
  write_bytes(dir.path() / "train" / "img1.jpg", encode_jpeg_rgb(rgb.data(), 60, 80, 90));
  write_bytes(dir.path() / "train" / "img2.jpg", encode_jpeg_rgb(rgb.data(), 60, 80, 90));
  dir.write("data_user_dict/gld23k_user_dict_train.csv", "user_id,image_id,class\n1,img1,4\n2,img2,0\n");
  auto dataset = open_dataset(DatasetSpec::parse("gld23k:" + dir.path().string()));
  EXPECT_EQ(dataset->size(), 2);
  EXPECT_EQ(dataset->info().classes.size(), 5U);
  EXPECT_EQ(dataset->info().files.size(), 3U);  // images + CSV
  std::vector<float> out(3 * 224 * 224);
  std::int64_t target = -1;
  Rng rng(1);
  ASSERT_TRUE(dataset->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 4);
  dir.write("data_user_dict/gld23k_user_dict_train.csv", "user_id,image_id,class\n1,img1,4\n2,img3,0\n");
  try {
    open_dataset(DatasetSpec::parse("gld23k:" + dir.path().string()));
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("img3"), std::string::npos) << e.what();
  }
}

// The reader decodes only the region a random crop samples, at a reduced JPEG scale where the
// crop allows: the sample is the same as decoding the whole image at that scale and transforming it.
TEST(ImageFilesDataset, RegionDecodeGivesTheSameSamplesAsAWholeDecode) {
  TempDir dir;
  const int h = 300, w = 400;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(h) * w * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>((i * 7 + i / 1200 * 3) % 251);
  const auto jpeg = encode_jpeg_rgb(rgb.data(), h, w, 90);
  write_bytes(dir.path() / "cls" / "a.jpg", jpeg);
  const Transform transform = Transform::parse("random-resized-crop=64,hflip,normalize=0.5/0.5");
  auto dataset = ImageFilesDataset::open_image_folder(dir.path(), transform);
  std::vector<float> sample(3 * 64 * 64), expected(3 * 64 * 64);
  std::int64_t target = -1;
  int scaled = 0;
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    Rng rng(seed);
    ASSERT_TRUE(dataset->get(0, rng, SampleOut{sample, {}, {&target, 1}, {}, {}}).ok);
    Rng same(seed);
    TransformPlan plan = transform.plan(h, w, same);
    DecodedImage whole;
    std::string error;
    ASSERT_TRUE(decode_image(jpeg, plan.max_source_shrink(), whole, error)) << error;
    if (whole.width != w) ++scaled;
    plan.scale_source(static_cast<double>(whole.height) / h, static_cast<double>(whole.width) / w);
    ASSERT_TRUE(
        transform.apply(plan, ImageView::interleaved(whole.pixels.data(), whole.height, whole.width, 3), expected));
    EXPECT_EQ(sample, expected) << "seed " << seed;
  }
  EXPECT_GT(scaled, 0) << "some crops are large enough for a reduced-scale decode";
}

TEST(ImageFilesDataset, ImageRemovedAfterOpeningIsASampleErrorNamingIt) {
  TempDir dir;
  const auto rgb = solid_rgb(20, 20, 1, 2, 3);
  write_bytes(dir.path() / "cls" / "gone.png", encode_png_rgb(rgb.data(), 20, 20));
  auto dataset = ImageFilesDataset::open_image_folder(dir.path(), Transform::parse("resize=8x8"));
  std::filesystem::remove(dir.path() / "cls" / "gone.png");
  std::vector<float> out(3 * 64);
  std::int64_t target = 0;
  Rng rng(0);
  const SampleStatus status = dataset->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}});
  EXPECT_FALSE(status.ok);
  EXPECT_NE(status.error.find((dir.path() / "cls" / "gone.png").string()), std::string::npos) << status.error;
}

}  // namespace
}  // namespace jetchar::loaders
