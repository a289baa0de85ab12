// Where this build lives, for tests that read the source tree's fixtures or run what was built.
// Only build_tree.cpp is compiled with the absolute paths: every other test object is the same
// in any clone, so ccache reuses it across CI's fresh clones (a path in a -D string literal is
// not rewritten by CCACHE_BASEDIR and made every test file a miss).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace jetchar::testing {

/// The source tree the tests were built from.
std::filesystem::path source_dir();
/// The build tree (where cli/jetchar is).
std::filesystem::path binary_dir();
/// The cross build's emulator and its arguments (qemu-aarch64 -L <sysroot>); empty natively.
const std::vector<std::string>& test_emulator();

}  // namespace jetchar::testing
