#include "loaders/image_files_dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "loaders/cifar10_dataset.h"
#include "loaders/dataset_spec.h"
#include "loaders/gld_csv.h"
#include "loaders/image_decode.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;

void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::uint8_t> solid_rgb(int h, int w, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(h) * w * 3);
  for (std::size_t i = 0; i < rgb.size(); i += 3) {
    rgb[i] = r;
    rgb[i + 1] = g;
    rgb[i + 2] = b;
  }
  return rgb;
}

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
  ASSERT_TRUE(decode_image(jpeg, 3.0, image, error)) << error;  // largest factor <= 3: 3/8 -> 36 wide
  EXPECT_EQ(image.width, 36);
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

TEST(GldCsv, ParsesHeaderAnyOrderQuotesAndErrorsWithLines) {
  const auto records = parse_gld_csv("user_id,image_id,class\n7,abc123,5\r\n\"8\",\"def\",0\n", "t.csv");
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].image_id, "abc123");
  EXPECT_EQ(records[0].class_id, 5);
  EXPECT_EQ(records[1].line, 3U);
  EXPECT_EQ(parse_gld_csv("class,image_id,user_id\n3,x,1\n", "t.csv")[0].class_id, 3);
  auto error_of = [](std::string_view text) {
    try {
      parse_gld_csv(text, "t.csv");
    } catch (const sysfs::FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("user,image,label\n").find("t.csv line 1"), std::string::npos);
  EXPECT_NE(error_of("user_id,image_id,class\n1,a,2\n1,b\n").find("t.csv line 3"), std::string::npos);
  EXPECT_NE(error_of("user_id,image_id,class\n1,a,x\n").find("'x'"), std::string::npos);
  EXPECT_NE(error_of("user_id,image_id,class\n1,../etc/passwd,1\n").find("line 2"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
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

std::vector<std::uint8_t> cifar_records(int n, int label_offset = 0) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n) * kCifarRecordBytes);
  for (int r = 0; r < n; ++r) {
    bytes[r * kCifarRecordBytes] = static_cast<std::uint8_t>((r + label_offset) % 10);
    for (int i = 1; i < 3073; ++i) bytes[r * kCifarRecordBytes + i] = static_cast<std::uint8_t>(r + i / 1024);
  }
  return bytes;
}

TEST(Cifar10Dataset, ReadsBatchesAcrossFilesWithPlanarChannels) {
  TempDir dir;
  write_bytes(dir.path() / "data_batch_1.bin", cifar_records(3));
  write_bytes(dir.path() / "data_batch_2.bin", cifar_records(2, 3));
  dir.write("batches.meta.txt", "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n");
  auto dataset = Cifar10Dataset::open_dir(dir.path(), "train", Transform{});
  EXPECT_EQ(dataset->size(), 5);
  EXPECT_EQ(dataset->info().classes[9], "truck");
  std::vector<float> out(3 * 32 * 32);
  std::int64_t target = -1;
  Rng rng(0);
  ASSERT_TRUE(dataset->get(4, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);  // record 1 of file 2
  EXPECT_EQ(target, 4);
  EXPECT_FLOAT_EQ(out[0], 1 / 255.0F);             // R plane
  EXPECT_FLOAT_EQ(out[1024 + 5], 2 / 255.0F);      // G plane
  EXPECT_FLOAT_EQ(out[2048 + 1000], 3 / 255.0F);   // B plane
  EXPECT_THROW(Cifar10Dataset::open_dir(dir.path(), "test", Transform{}), std::invalid_argument);
}

TEST(Cifar10Dataset, ShortRecordsAndBadLabelsNameFileAndOffset) {
  TempDir dir;
  auto bytes = cifar_records(2);
  bytes.pop_back();
  write_bytes(dir.path() / "test_batch.bin", bytes);
  try {
    Cifar10Dataset::open_dir(dir.path(), "test", Transform{});
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("test_batch.bin offset 3073"), std::string::npos) << e.what();
  }
  bytes = cifar_records(2);
  bytes[kCifarRecordBytes] = 12;
  write_bytes(dir.path() / "test_batch.bin", bytes);
  auto dataset = Cifar10Dataset::open_dir(dir.path(), "test", Transform{});
  std::vector<float> out(3 * 32 * 32);
  std::int64_t target = 0;
  Rng rng(0);
  const auto status = dataset->get(1, rng, SampleOut{out, {}, {&target, 1}, {}, {}});
  EXPECT_FALSE(status.ok);
  EXPECT_NE(status.error.find("offset 3073: label 12"), std::string::npos) << status.error;
  EXPECT_THROW(parse_cifar_class_names("\n\n", "meta"), sysfs::FormatError);
}

TEST(DatasetSpec, ParsesKindsSplitsOptionsAndRejectsBadText) {
  const auto spec = DatasetSpec::parse("cifar10/test:/data/cifar?x=1&y=2");
  EXPECT_EQ(spec.kind, "cifar10");
  EXPECT_EQ(spec.split, "test");
  EXPECT_EQ(spec.path, "/data/cifar");
  EXPECT_EQ(spec.options.at("y"), "2");
  EXPECT_EQ(DatasetSpec::parse("fashion-mnist:").path, "/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(DatasetSpec::parse("gld23k:/x").default_transform(), "gld23k");
  EXPECT_THROW(DatasetSpec::parse("imagenet:/x"), std::invalid_argument);
  EXPECT_THROW(DatasetSpec::parse("nokind"), std::invalid_argument);
  EXPECT_THROW(DatasetSpec::parse("cifar10:"), std::invalid_argument);
  EXPECT_THROW(DatasetSpec::parse("synthetic:3x32?bad"), std::invalid_argument);
  auto synthetic = open_dataset(DatasetSpec::parse("synthetic:3x8x8?samples=12&classes=3"));
  EXPECT_EQ(synthetic->size(), 12);
  EXPECT_EQ(synthetic->info().layout.input_shape, (std::vector<std::int64_t>{3, 8, 8}));
  EXPECT_THROW(open_dataset(DatasetSpec::parse("synthetic:3x0")), std::invalid_argument);
  EXPECT_THROW(open_dataset(DatasetSpec::parse("synthetic:3x8?samples=-1")), std::invalid_argument);
  EXPECT_THROW(open_dataset(DatasetSpec::parse("synthetic:3x8?color=red")), std::invalid_argument);
  EXPECT_THROW(open_dataset(DatasetSpec::parse("conll2003:/nowhere")), std::invalid_argument);  // needs vocab
}

TEST(DatasetSpec, DetectsKindFromContents) {
  TempDir dir;
  write_bytes(dir.path() / "cifar" / "data_batch_1.bin", cifar_records(1));
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "cifar").string()).kind, "cifar10");
  dir.write("folder/cat/a.png", "x");
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "folder").string()).kind, "imagefolder");
  if (std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz")) {
    EXPECT_EQ(resolve_dataset_spec("/usr/share/datasets/fashion-mnist").kind, "fashion-mnist");
  }
  EXPECT_THROW(resolve_dataset_spec((dir.path() / "missing").string()), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::loaders
