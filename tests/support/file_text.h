// A file's whole text for a test to inspect: empty when the file cannot be read, so that the
// assertion on its content says what is missing.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace jetchar::testing {

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace jetchar::testing
