#include "experiments/checkpoints/checkpoint_digest.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

TEST(CheckpointDigestTest, IsTheContentNotTheFolder) {
  testing::TempDir dir;
  for (const char* folder : {"a", "b"}) {
    write(dir.path() / folder / "config.json", R"({"model_type": "bert"})");
    write(dir.path() / folder / "model.safetensors", std::string(100000, '\x07'));
  }
  const std::string a = checkpoint_digest(dir.path() / "a", dir.path() / "a" / "model.safetensors");
  EXPECT_EQ(a.substr(0, 7), "sha256:");
  EXPECT_EQ(a.size(), 7u + 64u);
  EXPECT_EQ(checkpoint_digest(dir.path() / "b", dir.path() / "b" / "model.safetensors"), a);

  write(dir.path() / "b" / "model.safetensors", std::string(99999, '\x07') + '\x08');  // retrained
  EXPECT_NE(checkpoint_digest(dir.path() / "b", dir.path() / "b" / "model.safetensors"), a);
}

// The same bytes split differently between config.json and the weights are another checkpoint.
TEST(CheckpointDigestTest, EachFileIsHashedWithItsSize) {
  testing::TempDir dir;
  write(dir.path() / "a" / "config.json", "{}x");
  write(dir.path() / "a" / "w.bin", "y");
  write(dir.path() / "b" / "config.json", "{}");
  write(dir.path() / "b" / "w.bin", "xy");
  EXPECT_NE(checkpoint_digest(dir.path() / "a", dir.path() / "a" / "w.bin"),
            checkpoint_digest(dir.path() / "b", dir.path() / "b" / "w.bin"));
}

TEST(CheckpointDigestTest, AMissingFileIsNamed) {
  testing::TempDir dir;
  write(dir.path() / "config.json", "{}");
  try {
    checkpoint_digest(dir.path(), dir.path() / "model.safetensors");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("model.safetensors"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jetchar::experiments
