#include "results/location.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "sysfs/whole_file.h"
#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

TEST(ResultsLocation, ADirectoryBelongsToTheSweepSpecItWasGivenFirst) {
  const testing::TempDir dir;
  const ResultsLocation location{dir.path()};
  const std::string spec = "name: \"orin\"\nrepetitions: 2\n";
  EXPECT_FALSE(location.holds_sweep_spec(spec, "unused")) << "no spec yet: the sweep starts";
  location.store_sweep_spec(spec);
  EXPECT_EQ(sysfs::read_whole_file(location.spec()), spec);
  EXPECT_FALSE(std::filesystem::exists(location.spec().string() + ".tmp"));
  EXPECT_TRUE(location.holds_sweep_spec(spec, "unused")) << "the same spec resumes";
  try {
    location.holds_sweep_spec("name: \"other\"\n", "use another --results directory");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.path().string() + " holds results of a different sweep spec; use another --results directory");
  }
}

}  // namespace
}  // namespace jetchar::results
