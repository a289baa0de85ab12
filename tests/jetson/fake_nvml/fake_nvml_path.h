// Where the build puts the simulated NVML (tests/jetson/CMakeLists.txt: jetchar_fake_nvml).
#pragma once

#include <filesystem>

#include "tests/support/build_tree.h"

namespace jetchar::testing {

inline std::filesystem::path fake_nvml_library() {
  return binary_dir() / "tests" / "fake_nvml" / "libjetchar_fake_nvml.so";
}

}  // namespace jetchar::testing
