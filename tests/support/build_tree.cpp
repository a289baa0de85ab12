#include "tests/support/build_tree.h"

#include "tests/support/test_emulator.h"  // generated: kTestEmulator

namespace jetchar::testing {

std::filesystem::path source_dir() { return JETCHAR_SOURCE_DIR; }

std::filesystem::path binary_dir() { return JETCHAR_BINARY_DIR; }

const std::vector<std::string>& test_emulator() { return kTestEmulator; }

}  // namespace jetchar::testing
