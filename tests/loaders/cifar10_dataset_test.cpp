#include "loaders/cifar10_dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sysfs/error.h"
#include "tests/loaders/data_file_bytes.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;

// `n` records in the real layout: label byte, then R, G, B planes of 1,024 bytes; record r's
// plane c holds the value r + c everywhere.
std::vector<std::uint8_t> cifar_records(int n, int label_offset = 0) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n) * kCifarRecordBytes);
  for (int r = 0; r < n; ++r) {
    bytes[r * kCifarRecordBytes] = static_cast<std::uint8_t>((r + label_offset) % 10);
    for (int i = 1; i < 3073; ++i) bytes[r * kCifarRecordBytes + i] = static_cast<std::uint8_t>(r + (i - 1) / 1024);
  }
  return bytes;
}

const char* const kMeta = "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n\n";

TEST(Cifar10Dataset, ReadsTrainBatchesAcrossFilesWithPlanarChannels) {
  TempDir dir;
  write_bytes(dir.path() / "data_batch_1.bin", cifar_records(3));
  write_bytes(dir.path() / "data_batch_2.bin", cifar_records(2, 3));
  write_bytes(dir.path() / "data_batch_4.bin", cifar_records(1, 7));  // batch 3 absent: the present ones
  dir.write("batches.meta.txt", kMeta);
  auto dataset = Cifar10Dataset::open_dir(dir.path(), "train", Transform{});
  EXPECT_EQ(dataset->size(), 6);
  EXPECT_EQ(dataset->info().name, "cifar10/train");
  EXPECT_EQ(dataset->info().format, "cifar10-bin");
  EXPECT_EQ(dataset->info().classes, Cifar10Dataset::default_classes());
  EXPECT_EQ(dataset->info().layout.input_shape, (std::vector<std::int64_t>{3, 32, 32}));
  ASSERT_EQ(dataset->info().files.size(), 4U) << "three batches and batches.meta.txt";
  EXPECT_EQ(dataset->info().files.back().filename(), "batches.meta.txt");
  EXPECT_EQ(dataset->info().bytes, 6 * kCifarRecordBytes + std::string(kMeta).size());
  std::vector<float> out(3 * 32 * 32);
  std::int64_t target = -1;
  Rng rng(0);
  const SampleStatus status = dataset->get(4, rng, SampleOut{out, {}, {&target, 1}, {}, {}});  // file 2, record 1
  ASSERT_TRUE(status.ok) << status.error;
  EXPECT_EQ(status.bytes_read, kCifarRecordBytes);
  EXPECT_EQ(target, 4);
  EXPECT_FLOAT_EQ(out[0], 1 / 255.0F);                                             // R plane
  EXPECT_FLOAT_EQ(out[1024 + 5], 2 / 255.0F);                                      // G plane
  EXPECT_FLOAT_EQ(out[2048 + 1023], 3 / 255.0F);                                   // B plane, last pixel
  ASSERT_TRUE(dataset->get(5, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);  // file 3 (data_batch_4)
  EXPECT_EQ(target, 7);
  EXPECT_FALSE(dataset->get(6, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);

  const std::string missing = [&] {
    try {
      Cifar10Dataset::open_dir(dir.path(), "test", Transform{});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }();
  EXPECT_NE(missing.find("no test_batch.bin"), std::string::npos) << missing;
}

TEST(Cifar10Dataset, TestBatchWithTheSeedStudysNormalization) {
  TempDir dir;
  write_bytes(dir.path() / "test_batch.bin", cifar_records(2, 5));
  auto dataset = Cifar10Dataset::open_dir(dir.path(), "test", Transform::parse("cifar10"));
  EXPECT_EQ(dataset->size(), 2);
  EXPECT_EQ(dataset->info().classes[9], "truck") << "default names without batches.meta.txt";
  EXPECT_EQ(dataset->info().files.size(), 1U);
  std::vector<float> out(3 * 32 * 32);
  std::int64_t target = -1;
  Rng rng(0);
  ASSERT_TRUE(dataset->get(1, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
  EXPECT_EQ(target, 6);
  EXPECT_NEAR(out[0], (1 / 255.0F - 0.4914F) / 0.2023F, 1e-5);
  EXPECT_NEAR(out[2048], (3 / 255.0F - 0.4465F) / 0.2010F, 1e-5);
  // Augmentation (random crop with padding, flip) keeps the shape.
  auto augmented = Cifar10Dataset::open_dir(dir.path(), "test", Transform::parse("cifar10-augment"));
  EXPECT_EQ(augmented->info().layout.input_shape, (std::vector<std::int64_t>{3, 32, 32}));
  ASSERT_TRUE(augmented->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}}).ok);
}

TEST(Cifar10Dataset, ShortRecordsNameFileAndOffset) {
  TempDir dir;
  auto bytes = cifar_records(2);
  bytes.pop_back();
  write_bytes(dir.path() / "test_batch.bin", bytes);
  const std::string file = (dir.path() / "test_batch.bin").string();
  std::string error = format_error_of([&] { Cifar10Dataset::open_dir(dir.path(), "test", Transform{}); });
  EXPECT_NE(error.find(file + " offset 3073"), std::string::npos) << error;
  EXPECT_NE(error.find("6145 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("3073-byte records"), std::string::npos) << error;

  write_bytes(dir.path() / "test_batch.bin", {});
  error = format_error_of([&] { Cifar10Dataset::open_dir(dir.path(), "test", Transform{}); });
  EXPECT_NE(error.find(file + " offset 0"), std::string::npos) << error;
  EXPECT_NE(error.find("0 bytes"), std::string::npos) << error;

  // The record check itself, as the reader and the fuzzer use it.
  const auto records = cifar_records(1);
  EXPECT_EQ(check_cifar_record(records, 10, "b.bin", 0), "");
  EXPECT_EQ(check_cifar_record(std::span(records).first(100), 10, "b.bin", 6146),
            "b.bin offset 6146: short record of 100 bytes, expected 3073");
}

TEST(Cifar10Dataset, LabelsOutsideTheClassesNameFileAndOffset) {
  TempDir dir;
  auto bytes = cifar_records(2);
  bytes[kCifarRecordBytes] = 12;
  write_bytes(dir.path() / "test_batch.bin", bytes);
  auto dataset = Cifar10Dataset::open_dir(dir.path(), "test", Transform{});
  std::vector<float> out(3 * 32 * 32);
  std::int64_t target = 0;
  Rng rng(0);
  SampleStatus status = dataset->get(1, rng, SampleOut{out, {}, {&target, 1}, {}, {}});
  EXPECT_FALSE(status.ok);
  EXPECT_NE(
      status.error.find((dir.path() / "test_batch.bin").string() + " offset 3073: label 12 is not a class id 0..9"),
      std::string::npos)
      << status.error;
  // With three class names in batches.meta.txt, label 5 is out of range too.
  dir.write("batches.meta.txt", "a\nb\nc\n");
  bytes = cifar_records(1, 5);
  write_bytes(dir.path() / "test_batch.bin", bytes);
  dataset = Cifar10Dataset::open_dir(dir.path(), "test", Transform{});
  EXPECT_EQ(dataset->info().classes, (std::vector<std::string>{"a", "b", "c"}));
  status = dataset->get(0, rng, SampleOut{out, {}, {&target, 1}, {}, {}});
  EXPECT_NE(status.error.find("offset 0: label 5 is not a class id 0..2"), std::string::npos) << status.error;
}

TEST(Cifar10Dataset, ClassNamesFromBatchesMetaTxt) {
  EXPECT_EQ(parse_cifar_class_names(kMeta, "meta"), Cifar10Dataset::default_classes());
  EXPECT_EQ(parse_cifar_class_names("  cat \r\n\r\n\tdog\t\r\nsea lion", "meta"),
            (std::vector<std::string>{"cat", "dog", "sea lion"}));
  std::string error = format_error_of([] { parse_cifar_class_names("\n\n", "batches.meta.txt"); });
  EXPECT_NE(error.find("batches.meta.txt"), std::string::npos) << error;
  EXPECT_NE(error.find("no class names"), std::string::npos) << error;
  error = format_error_of([] { parse_cifar_class_names("cat\ndog\nbi\x01rd\n", "batches.meta.txt"); });
  EXPECT_NE(error.find("batches.meta.txt"), std::string::npos) << error;
  EXPECT_NE(error.find("line 3"), std::string::npos) << error;
  EXPECT_NE(error.find("0x01"), std::string::npos) << error;
  std::string many;
  for (int i = 0; i < 257; ++i) many += "c" + std::to_string(i) + "\n";
  error = format_error_of([&] { parse_cifar_class_names(many, "m.txt"); });
  EXPECT_NE(error.find("line 257"), std::string::npos) << error;
  EXPECT_NE(error.find("at most 256"), std::string::npos) << error;

  TempDir dir;
  write_bytes(dir.path() / "data_batch_1.bin", cifar_records(1));
  dir.write("batches.meta.txt", "ok\nbad\x7f\n");
  error = format_error_of([&] { Cifar10Dataset::open_dir(dir.path(), "train", Transform{}); });
  EXPECT_NE(error.find((dir.path() / "batches.meta.txt").string()), std::string::npos) << error;
  EXPECT_NE(error.find("line 2"), std::string::npos) << error;
}

}  // namespace
}  // namespace jetchar::loaders
