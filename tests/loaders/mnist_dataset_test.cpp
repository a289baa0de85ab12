#include "loaders/mnist_dataset.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loaders/dataset_spec.h"
#include "sysfs/error.h"
#include "tests/loaders/data_file_bytes.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;
namespace fs = std::filesystem;

// Where Debian's dataset-fashion-mnist package installs the files (`dpkg -L dataset-fashion-mnist`).
const fs::path kDebianFashionMnist = "/usr/share/datasets/fashion-mnist";

std::string idx_labels(int n, int classes) {
  std::string bytes = be32(0x801) + be32(n);
  for (int i = 0; i < n; ++i) bytes.push_back(static_cast<char>(i % classes));
  return bytes;
}

TEST(MnistDataset, ReadsRawAndGzipIdentically) {
  TempDir dir;
  dir.write("raw/train-images-idx3-ubyte", idx_images(6, 28, 28));
  dir.write("raw/train-labels-idx1-ubyte", idx_labels(6, 10));
  write_gzip(dir.path() / "train-images-idx3-ubyte.gz", idx_images(6, 28, 28));
  write_gzip(dir.path() / "train-labels-idx1-ubyte.gz", idx_labels(6, 10));
  auto raw = MnistDataset::open_dir(dir.path() / "raw", "train", false, Transform{});
  auto gz = MnistDataset::open_dir(dir.path(), "train", true, Transform::parse("mnist"));
  EXPECT_EQ(raw->size(), 6);
  EXPECT_EQ(raw->info().format, "idx");
  EXPECT_EQ(raw->info().name, "mnist/train");
  EXPECT_EQ(gz->info().format, "idx.gz");
  EXPECT_EQ(gz->info().name, "fashion-mnist/train");
  EXPECT_EQ(gz->info().classes[9], "Ankle boot");
  EXPECT_EQ(raw->info().classes[9], "9");
  EXPECT_EQ(raw->info().layout.input_shape, (std::vector<std::int64_t>{1, 28, 28}));
  EXPECT_EQ(gz->info().files.size(), 2U);
  EXPECT_EQ(gz->info().bytes, fs::file_size(dir.path() / "train-images-idx3-ubyte.gz") +
                                  fs::file_size(dir.path() / "train-labels-idx1-ubyte.gz"));
  std::vector<float> a(784), b(784);
  std::int64_t ta = -1, tb = -1;
  Rng rng(1);
  ASSERT_TRUE(raw->get(4, rng, SampleOut{a, {}, {&ta, 1}, {}, {}}).ok);
  ASSERT_TRUE(gz->get(4, rng, SampleOut{b, {}, {&tb, 1}, {}, {}}).ok);
  EXPECT_EQ(ta, 4);
  EXPECT_EQ(tb, 4);
  const int first = 4 * 784;
  EXPECT_FLOAT_EQ(a[10], static_cast<float>(((first + 10) * 7) % 256) / 255.0F);
  EXPECT_FLOAT_EQ(b[10], (a[10] - 0.1307F) / 0.3081F);
  // Raw is preferred when both exist.
  dir.write("train-images-idx3-ubyte", idx_images(6, 28, 28));
  dir.write("train-labels-idx1-ubyte", idx_labels(6, 10));
  EXPECT_EQ(MnistDataset::open_dir(dir.path(), "train", false, Transform{})->info().format, "idx");
}

TEST(MnistDataset, TestSplitIsT10kAndOtherSizesWork) {
  TempDir dir;
  dir.write("t10k-images-idx3-ubyte", idx_images(3, 5, 7));
  dir.write("t10k-labels-idx1-ubyte", idx_labels(3, 10));
  auto test = MnistDataset::open_dir(dir.path(), "test", false, Transform{});
  EXPECT_EQ(test->info().name, "mnist/test");
  EXPECT_EQ(test->info().layout.input_shape, (std::vector<std::int64_t>{1, 5, 7}));
  std::vector<float> out(35);
  std::int64_t target = -1;
  Rng rng(0);
  ASSERT_TRUE(test->get(2, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 2);
  EXPECT_FALSE(test->get(3, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
}

TEST(MnistDataset, BadFilesNameFileOffsetAndValue) {
  TempDir dir;
  dir.write("train-images-idx3-ubyte", idx_images(6, 4, 4));
  dir.write("train-labels-idx1-ubyte", idx_labels(5, 10));
  std::string error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", false, Transform{}); });
  EXPECT_NE(error.find("train-images-idx3-ubyte"), std::string::npos) << error;
  EXPECT_NE(error.find("6 images"), std::string::npos) << error;
  EXPECT_NE(error.find("(5)"), std::string::npos) << error;

  std::string labels = idx_labels(6, 10);
  labels[8 + 3] = 42;
  dir.write("train-labels-idx1-ubyte", labels);
  error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", false, Transform{}); });
  EXPECT_NE(error.find("train-labels-idx1-ubyte offset 11 (label 3)"), std::string::npos) << error;
  EXPECT_NE(error.find("'42'"), std::string::npos) << error;
  EXPECT_NE(error.find("class id 0..9"), std::string::npos) << error;

  // Images and labels swapped: the magic numbers say which is which.
  dir.write("train-labels-idx1-ubyte", idx_images(6, 4, 4));
  error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", false, Transform{}); });
  EXPECT_NE(error.find("train-labels-idx1-ubyte"), std::string::npos) << error;
  EXPECT_NE(error.find("00 00 08 01"), std::string::npos) << error;

  // Wrong magic in the images file: offset 0 and the bytes found.
  std::string images = idx_images(6, 4, 4);
  images[0] = 0x1F;
  dir.write("train-labels-idx1-ubyte", idx_labels(6, 10));
  dir.write("train-images-idx3-ubyte", images);
  error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", false, Transform{}); });
  EXPECT_NE(error.find("train-images-idx3-ubyte offset 0"), std::string::npos) << error;
  EXPECT_NE(error.find("1f 00 08 03"), std::string::npos) << error;

  // A truncated images file: the data offset and how many bytes there are.
  images = idx_images(6, 4, 4);
  images.resize(images.size() - 5);
  dir.write("train-images-idx3-ubyte", images);
  error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", false, Transform{}); });
  EXPECT_NE(error.find("train-images-idx3-ubyte offset 16"), std::string::npos) << error;
  EXPECT_NE(error.find("91 data bytes"), std::string::npos) << error;
}

TEST(MnistDataset, CorruptGzipNamesTheFileAndTheCompressedOffset) {
  TempDir dir;
  write_gzip(dir.path() / "train-images-idx3-ubyte.gz", idx_images(40, 28, 28));
  write_gzip(dir.path() / "train-labels-idx1-ubyte.gz", idx_labels(40, 10));
  const fs::path images = dir.path() / "train-images-idx3-ubyte.gz";
  fs::resize_file(images, fs::file_size(images) / 2);
  std::string error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", true, Transform{}); });
  EXPECT_NE(error.find(images.string() + " compressed offset"), std::string::npos) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // A flipped byte in the deflate data or the CRC is caught by zlib.
  write_gzip(images, idx_images(40, 28, 28));
  std::string bytes;
  {
    std::ifstream in(images, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 6] ^= 0x55;  // inside the CRC-32 trailer
  dir.write("train-images-idx3-ubyte.gz", bytes);
  error = format_error_of([&] { MnistDataset::open_dir(dir.path(), "train", true, Transform{}); });
  EXPECT_NE(error.find(images.string() + " compressed offset"), std::string::npos) << error;
}

TEST(MnistDataset, MissingFilesAndSplitsAreInvalidArguments) {
  TempDir dir;
  auto message = [&](const std::string& split, const fs::path& where) {
    try {
      MnistDataset::open_dir(where, split, false, Transform{});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("valid", dir.path()).find("split 'valid' is not valid; expected train or test"), std::string::npos);
  const std::string missing = message("train", dir.path());
  EXPECT_NE(missing.find(dir.path().string() + ": no train-images-idx3-ubyte or train-images-idx3-ubyte.gz"),
            std::string::npos)
      << missing;
  dir.write("t10k-images-idx3-ubyte", idx_images(1, 2, 2));
  EXPECT_NE(message("test", dir.path()).find("t10k-labels-idx1-ubyte"), std::string::npos);
}

// The real data set from Debian's dataset-fashion-mnist package, through zlib.
TEST(MnistDatasetIntegration, LoadsFashionMnistFromTheDebianPackage) {
  if (!fs::exists(kDebianFashionMnist / "train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (" << kDebianFashionMnist << ")";
  }
  // The default path of the fashion-mnist kind is the package's.
  auto train = open_dataset(DatasetSpec::parse("fashion-mnist:"));
  EXPECT_EQ(train->size(), 60000);
  EXPECT_EQ(train->info().format, "idx.gz");
  EXPECT_EQ(train->info().root, kDebianFashionMnist);
  EXPECT_EQ(train->info().classes, MnistDataset::fashion_mnist_classes());
  EXPECT_EQ(train->info().bytes, fs::file_size(kDebianFashionMnist / "train-images-idx3-ubyte.gz") +
                                     fs::file_size(kDebianFashionMnist / "train-labels-idx1-ubyte.gz"));
  const auto& mnist = dynamic_cast<const MnistDataset&>(*train);
  std::array<int, 10> train_counts{};
  for (std::int64_t i = 0; i < mnist.size(); ++i) train_counts[mnist.label(i)]++;
  for (int count : train_counts) EXPECT_EQ(count, 6000);

  auto test = MnistDataset::open_dir(kDebianFashionMnist, "test", true, Transform::parse("mnist"));
  EXPECT_EQ(test->size(), 10000);
  std::array<int, 10> per_class{};
  for (std::int64_t i = 0; i < test->size(); ++i) per_class[test->label(i)]++;
  for (int count : per_class) EXPECT_EQ(count, 1000);  // the test split is balanced
  std::vector<float> image(784);
  std::int64_t target = -1;
  Rng rng(0);
  ASSERT_TRUE(test->get(0, rng, SampleOut{image, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 9);  // the first Fashion-MNIST test image is an ankle boot
  EXPECT_FLOAT_EQ(image[0], (0.0F - 0.1307F) / 0.3081F) << "corner pixels are background";
  float max_value = image[0];
  for (float v : image) max_value = std::max(max_value, v);
  EXPECT_GT(max_value, 2.0F) << "some bright pixels";
}

}  // namespace
}  // namespace jetchar::loaders
