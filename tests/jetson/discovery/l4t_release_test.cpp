#include "jetson/discovery/l4t_release.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sysfs/error.h"

using jetchar::jetson::jetpack_for;
using jetchar::jetson::L4tRelease;
using jetchar::jetson::parse_l4t_package_version;
using jetchar::jetson::parse_nv_tegra_release;
using ::testing::HasSubstr;

TEST(L4tReleaseTest, ParsesR36WithKernelVariant) {
  const auto r = parse_nv_tegra_release(
      "# R36 (release), REVISION: 4.4, GCID: 41062509, BOARD: generic, EABI: aarch64, DATE: Mon Jun 16 2025\n"
      "# KERNEL_VARIANT: oot\nTARGET_USERSPACE_LIB_DIR=nvidia\n",
      "/etc/nv_tegra_release");
  EXPECT_EQ(r.major, 36);
  EXPECT_EQ(r.minor, 4);
  EXPECT_EQ(r.patch, 4);
  EXPECT_EQ(r.version(), "36.4.4");
  EXPECT_EQ(r.gcid, "41062509");
  EXPECT_EQ(r.board, "generic");
  EXPECT_EQ(r.kernel_variant, "oot");
}

TEST(L4tReleaseTest, ParsesR32AndR35) {
  const auto r32 = parse_nv_tegra_release(
      "# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, EABI: aarch64, DATE: Sat Feb 19 2022", "f");
  EXPECT_EQ(r32.version(), "32.7.1");
  EXPECT_EQ(r32.board, "t210ref");
  EXPECT_FALSE(r32.kernel_variant);
  const auto r35 = parse_nv_tegra_release("# R35 (release), REVISION: 3.1, GCID: 32827747, BOARD: t186ref", "f");
  EXPECT_EQ(r35.version(), "35.3.1");
  // A one-field revision means patch 0.
  EXPECT_EQ(parse_nv_tegra_release("# R38 (release), REVISION: 2", "f").version(), "38.2.0");
}

TEST(L4tReleaseTest, MalformedFileNamesTheFileAndTheValue) {
  for (const char* bad :
       {"", "garbage", "# R (release), REVISION: 4.4", "# Rxx (release), REVISION: 4.4", "# R36 (release), GCID: 1",
        "# R36 (release), REVISION: four", "# R36 (release), REVISION: 4.x", "\n# R36 (release), REVISION: 4.4"}) {
    try {
      parse_nv_tegra_release(bad, "/etc/nv_tegra_release");
      FAIL() << "accepted '" << bad << "'";
    } catch (const jetchar::sysfs::FormatError& e) {
      EXPECT_EQ(e.path(), "/etc/nv_tegra_release");
      EXPECT_THAT(e.what(), HasSubstr("REVISION"));
    }
  }
  try {
    parse_nv_tegra_release("R36 junk", "/etc/nv_tegra_release");
  } catch (const jetchar::sysfs::FormatError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'R36 junk'"));
  }
}

TEST(L4tReleaseTest, PackageVersionFallback) {
  EXPECT_EQ(parse_l4t_package_version("36.4.4-20250616085344", "dpkg").version(), "36.4.4");
  EXPECT_EQ(parse_l4t_package_version("32.7.1-20220219090432", "dpkg").version(), "32.7.1");
  EXPECT_THROW(parse_l4t_package_version("nope", "dpkg"), jetchar::sysfs::FormatError);
  EXPECT_THROW(parse_l4t_package_version("36-1", "dpkg"), jetchar::sysfs::FormatError);
}

TEST(L4tReleaseTest, JetpackTableLookups) {
  auto jp = [](int a, int b, int c) { return jetpack_for(L4tRelease{a, b, c, {}, {}, {}}); };
  EXPECT_EQ(jp(32, 7, 1), "4.6.1");
  EXPECT_EQ(jp(32, 7, 6), "4.6.6");
  EXPECT_EQ(jp(35, 2, 1), "5.1");
  EXPECT_EQ(jp(35, 6, 2), "5.1.5");
  EXPECT_EQ(jp(36, 4, 3), "6.2");
  EXPECT_EQ(jp(36, 4, 7), "6.2.1");
  EXPECT_EQ(jp(38, 2, 1), "7.0");
  EXPECT_EQ(jp(39, 2, 0), "7.2");
  // Unknown releases are unknown, never guessed.
  EXPECT_FALSE(jp(36, 4, 5));
  EXPECT_FALSE(jp(32, 6, 1));
  EXPECT_FALSE(jp(40, 0, 0));
}
