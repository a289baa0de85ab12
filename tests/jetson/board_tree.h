// Test helper: a small board tree built from manifest text (format in
// tests/fixtures/boards/README.md), expanded into a temporary directory.
#pragma once

#include <string_view>

#include "jetson/simulated/board_fixture.h"
#include "sysfs/root.h"
#include "tests/support/temp_dir.h"

namespace jetchar::testing {

struct BoardTree {
  explicit BoardTree(std::string_view manifest) {
    jetson::FixtureManifest::parse(manifest, dir.path(), "test.manifest").expand(dir.path());
  }
  sysfs::Root root() const { return sysfs::Root(dir.path()); }
  TempDir dir;
};

}  // namespace jetchar::testing
