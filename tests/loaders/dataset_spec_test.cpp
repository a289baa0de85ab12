#include "loaders/dataset_spec.h"

#include <gtest/gtest.h>
#include <zlib.h>

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
namespace fs = std::filesystem;

// The message of the std::invalid_argument `call` throws, or "no error".
template <typename F>
std::string invalid_argument_of(F&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(DatasetSpec, ParsesKindSplitPathAndOptions) {
  const auto spec = DatasetSpec::parse("cifar10/test:/data/cifar?x=1&y=2");
  EXPECT_EQ(spec.kind, "cifar10");
  EXPECT_EQ(spec.split, "test");
  EXPECT_EQ(spec.path, "/data/cifar");
  EXPECT_EQ(spec.options, (std::map<std::string, std::string>{{"x", "1"}, {"y", "2"}}));
  EXPECT_EQ(spec.text, "cifar10/test:/data/cifar?x=1&y=2");
  const auto plain = DatasetSpec::parse("mnist:relative/dir");
  EXPECT_EQ(plain.split, "train");
  EXPECT_EQ(plain.path, "relative/dir");
  EXPECT_TRUE(plain.options.empty());
  // A colon inside the path stays in the path; an empty value is a value.
  const auto colon = DatasetSpec::parse("imagefolder:/a:b?k=");
  EXPECT_EQ(colon.path, "/a:b");
  EXPECT_EQ(colon.options.at("k"), "");
  EXPECT_EQ(DatasetSpec::parse("fashion-mnist:").path, "/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(DatasetSpec::parse("fashion-mnist/test:?").split, "test");
}

TEST(DatasetSpec, DefaultTransformPerKind) {
  EXPECT_EQ(DatasetSpec::parse("mnist:/x").default_transform(), "mnist");
  EXPECT_EQ(DatasetSpec::parse("fashion-mnist:/x").default_transform(), "mnist");
  EXPECT_EQ(DatasetSpec::parse("cifar10:/x").default_transform(), "cifar10");
  EXPECT_EQ(DatasetSpec::parse("gld23k:/x").default_transform(), "gld23k");
  EXPECT_EQ(DatasetSpec::parse("imagefolder:/x").default_transform(), "gld23k");
  EXPECT_EQ(DatasetSpec::parse("synthetic:3x8").default_transform(), "");
  EXPECT_EQ(DatasetSpec::parse("squad:/x.json").default_transform(), "");
}

TEST(DatasetSpec, BadTextNamesTheTextThePartAndWhatIsValid) {
  std::string error = invalid_argument_of([] { DatasetSpec::parse("imagenet:/x"); });
  EXPECT_NE(error.find("'imagenet:/x'"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown kind 'imagenet'"), std::string::npos) << error;
  EXPECT_NE(error.find("mnist, fashion-mnist, cifar10"), std::string::npos) << error;

  error = invalid_argument_of([] { DatasetSpec::parse("nokind"); });
  EXPECT_NE(error.find("KIND[/SPLIT]:PATH"), std::string::npos) << error;
  error = invalid_argument_of([] { DatasetSpec::parse(":/x"); });
  EXPECT_NE(error.find("KIND[/SPLIT]:PATH"), std::string::npos) << error;
  error = invalid_argument_of([] { DatasetSpec::parse("cifar10:"); });
  EXPECT_NE(error.find("no PATH after 'cifar10:'"), std::string::npos) << error;
  error = invalid_argument_of([] { DatasetSpec::parse("cifar10/:/x"); });
  EXPECT_NE(error.find("empty split"), std::string::npos) << error;
  error = invalid_argument_of([] { DatasetSpec::parse("synthetic:3x32?bad"); });
  EXPECT_NE(error.find("option 'bad' is not KEY=VALUE"), std::string::npos) << error;
  error = invalid_argument_of([] { DatasetSpec::parse("synthetic:3x32?a=1&=2"); });
  EXPECT_NE(error.find("option '=2'"), std::string::npos) << error;
}

TEST(DatasetSpec, OpensSyntheticDataOfAnyShape) {
  auto synthetic = open_dataset(DatasetSpec::parse("synthetic:3x8x8?samples=12&classes=3"));
  EXPECT_EQ(synthetic->size(), 12);
  EXPECT_EQ(synthetic->info().layout.input_shape, (std::vector<std::int64_t>{3, 8, 8}));
  EXPECT_EQ(synthetic->info().classes.size(), 3U);
  EXPECT_EQ(open_dataset(DatasetSpec::parse("synthetic:7"))->info().layout.input_shape, (std::vector<std::int64_t>{7}));
  EXPECT_EQ(open_dataset(DatasetSpec::parse("synthetic:7"))->size(), 10000);  // the default

  std::string error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3x0")); });
  EXPECT_NE(error.find("'3x0'"), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3xx8")); });
  EXPECT_NE(error.find("shape '3xx8' is not valid"), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3x8?samples=-1")); });
  EXPECT_NE(error.find("option samples=-1 is not valid; expected an integer 1.."), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3x8?classes=two")); });
  EXPECT_NE(error.find("classes=two"), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3x8?color=red")); });
  EXPECT_NE(error.find("unknown option 'color'; synthetic takes samples, classes, delay_us"), std::string::npos)
      << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("synthetic:3x8"), std::string("gld23k")); });
  EXPECT_NE(error.find("takes no transform"), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("cifar10:/x?samples=3")); });
  EXPECT_NE(error.find("unknown option 'samples'; cifar10 takes none"), std::string::npos) << error;
  error = invalid_argument_of([] { open_dataset(DatasetSpec::parse("conll2003:/nowhere")); });
  EXPECT_NE(error.find("needs ?vocab=PATH"), std::string::npos) << error;
}

TEST(DatasetSpec, OpensFileKindsAndNamesMissingOnes) {
  TempDir dir;
  std::string error = invalid_argument_of([&] { open_dataset(DatasetSpec::parse("cifar10:" + dir.path().string())); });
  EXPECT_NE(error.find(dir.path().string()), std::string::npos) << error;
  EXPECT_NE(error.find("data_batch_1.bin"), std::string::npos) << error;
  error = invalid_argument_of([&] { open_dataset(DatasetSpec::parse("mnist/valid:" + dir.path().string())); });
  EXPECT_NE(error.find("split 'valid' is not valid; expected train or test"), std::string::npos) << error;
  error = invalid_argument_of([&] { open_dataset(DatasetSpec::parse("gld23k:" + dir.path().string())); });
  EXPECT_NE(error.find("no GLD-23k train CSV"), std::string::npos) << error;
  // A transform by name or step list replaces the kind's default.
  std::vector<std::uint8_t> record(3073, 7);
  record[0] = 1;
  std::ofstream(dir.path() / "test_batch.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(record.data()), static_cast<std::streamsize>(record.size()));
  auto cifar = open_dataset(DatasetSpec::parse("cifar10/test:" + dir.path().string()), std::string("center-crop=24"));
  EXPECT_EQ(cifar->info().layout.input_shape, (std::vector<std::int64_t>{3, 24, 24}));
  EXPECT_EQ(cifar->info().name, "cifar10/test");
  error = invalid_argument_of(
      [&] { open_dataset(DatasetSpec::parse("cifar10/test:" + dir.path().string()), std::string("blur=3")); });
  EXPECT_NE(error.find("'blur=3'"), std::string::npos) << error;
}

TEST(DatasetSpec, DetectsTheKindFromAPathsContents) {
  TempDir dir;
  dir.write("cifar/data_batch_1.bin", std::string(3073, '\1'));
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "cifar").string()).kind, "cifar10");
  dir.write("cifar-test/test_batch.bin", std::string(3073, '\1'));
  const auto test = resolve_dataset_spec((dir.path() / "cifar-test").string());
  EXPECT_EQ(test.kind, "cifar10");
  EXPECT_EQ(test.split, "test");
  dir.write("digits/train-images-idx3-ubyte", "x");
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "digits").string()).kind, "mnist");
  fs::create_directories(dir.path() / "fashion");
  write_gzip(dir.path() / "fashion" / "t10k-images-idx3-ubyte.gz", "x");
  const auto fashion = resolve_dataset_spec((dir.path() / "fashion").string());
  EXPECT_EQ(fashion.kind, "fashion-mnist");
  EXPECT_EQ(fashion.split, "test");
  dir.write("gld/data_user_dict/gld23k_user_dict_train.csv", "user_id,image_id,class\n");
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "gld").string()).kind, "gld23k");
  const fs::path csv = dir.write("split.csv", "user_id,image_id,class\n");
  EXPECT_EQ(resolve_dataset_spec(csv.string()).kind, "gld23k");
  dir.write("folder/cat/a.png", "x");
  EXPECT_EQ(resolve_dataset_spec((dir.path() / "folder").string()).kind, "imagefolder");
  // Text that starts with a known kind is a spec, whatever exists on disk.
  EXPECT_EQ(resolve_dataset_spec("synthetic/test:3x4").split, "test");
  // KIND:PATH without a split is a spec too (the CLI refused every one of them).
  EXPECT_EQ(resolve_dataset_spec("synthetic:1x28x28?samples=16&classes=10").kind, "synthetic");
  EXPECT_EQ(resolve_dataset_spec("fashion-mnist:/usr/share/datasets/fashion-mnist").kind, "fashion-mnist");
  EXPECT_EQ(resolve_dataset_spec("cifar10:/nowhere/cifar").path, "/nowhere/cifar");

  std::string error = invalid_argument_of([&] { resolve_dataset_spec((dir.path() / "missing").string()); });
  EXPECT_NE(error.find("neither a data set spec"), std::string::npos) << error;
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
  dir.write("flat/readme.txt", "no data here");
  error = invalid_argument_of([&] { resolve_dataset_spec((dir.path() / "flat").string()); });
  EXPECT_NE(error.find((dir.path() / "flat").string() + ": cannot tell the data set kind"), std::string::npos) << error;
}

TEST(DatasetSpec, KindsAreListedWithDescriptions) {
  const auto kinds = dataset_kinds();
  ASSERT_EQ(kinds.size(), 10U);
  for (const auto& [name, description] : kinds) {
    EXPECT_FALSE(description.empty()) << name;
    EXPECT_NO_THROW(DatasetSpec::parse(name + ":/x")) << name;
  }
}

}  // namespace
}  // namespace jetchar::loaders
