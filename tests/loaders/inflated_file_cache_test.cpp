#include "loaders/inflated_file_cache.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "loaders/idx.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;

void gzip_to(const std::filesystem::path& path, const std::string& content) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

std::string text_of(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

// Debian's Fashion-MNIST (dataset-fashion-mnist, installed by scripts/install-deps.sh), whose
// files were written long before: the file every simulated sweep of the examples opens per run.
const std::filesystem::path kDebianLabels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";

TEST(InflatedFileCache, AnUnchangedFileIsInflatedOnceAndShared) {
  if (!std::filesystem::exists(kDebianLabels)) GTEST_SKIP() << kDebianLabels << " is not installed";
  const auto first = inflated_file(kDebianLabels);
  const auto second = inflated_file(kDebianLabels);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(text_of(*first), text_of(read_maybe_gzip(kDebianLabels)));
}

// A file written in the last seconds may be written again without its times moving (the kernel
// keeps them at a coarse grain), so it is read every time until it has settled.
TEST(InflatedFileCache, AFileJustWrittenIsReadEveryTime) {
  TempDir dir;
  const auto file = dir.path() / "labels.gz";
  gzip_to(file, "first version");
  const auto first = inflated_file(file);
  EXPECT_NE(first.get(), inflated_file(file).get());
  // Rewritten in place to the same size, within the same clock tick perhaps.
  gzip_to(file, "other version");
  EXPECT_EQ(text_of(*inflated_file(file)), "other version");
  // Replaced by rename (a new inode), as a download tool does.
  gzip_to(dir.path() / "new.gz", "third version");
  std::filesystem::rename(dir.path() / "new.gz", file);
  EXPECT_EQ(text_of(*inflated_file(file)), "third version");
  EXPECT_EQ(text_of(*first), "first version");  // a data set holding the old bytes keeps them
}

TEST(InflatedFileCache, ADeviceOrAMissingFileIsRefusedByName) {
  TempDir dir;
  try {
    inflated_file("/dev/zero");
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("regular file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(inflated_file(dir.path() / "absent.gz"), sysfs::IoError);
}

TEST(InflatedFileCache, ACorruptFileIsNamedAndNotKept) {
  TempDir dir;
  const auto file = dir.path() / "a.gz";
  gzip_to(file, std::string(5000, 'y'));
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  EXPECT_THROW(inflated_file(file), sysfs::FormatError);
  EXPECT_THROW(inflated_file(file), sysfs::FormatError);  // not cached as a success either
}

TEST(InflatedFileCache, ThreadsOpeningTheSameFileGetTheSameBytes) {
  TempDir dir;
  const auto file = dir.path() / "shared.gz";
  gzip_to(file, std::string(200'000, 'z'));
  std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> got(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t) threads.emplace_back([&, t] { got[t] = inflated_file(file); });
  for (auto& t : threads) t.join();
  for (const auto& bytes : got) EXPECT_EQ(bytes->size(), 200'000U);
}

}  // namespace
}  // namespace jetchar::loaders
