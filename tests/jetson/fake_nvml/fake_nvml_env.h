// Points this process's NVML at the simulated GPU (fake_nvml.cpp) for one test, with a state file
// in a temporary directory, and puts the environment back afterwards.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "jetson/nvml/nvml_library.h"
#include "tests/jetson/fake_nvml/fake_nvml_path.h"
#include "tests/support/temp_dir.h"

namespace jetchar::testing {

class FakeNvmlEnv {
 public:
  FakeNvmlEnv() {
    set(jetson::kNvmlLibraryEnv, fake_nvml_library().string());
    set("JETCHAR_FAKE_NVML_STATE", state_file().string());
  }
  ~FakeNvmlEnv() {
    for (const auto& name : names_) ::unsetenv(name.c_str());
  }
  FakeNvmlEnv(const FakeNvmlEnv&) = delete;
  FakeNvmlEnv& operator=(const FakeNvmlEnv&) = delete;

  void set(const std::string& name, const std::string& value) {
    ::setenv(name.c_str(), value.c_str(), 1);
    names_.push_back(name);
  }
  std::filesystem::path state_file() const { return dir_.path() / "fake-nvml-state"; }
  /// Sets one line of the state ("gpu0.load_pct", "50"), keeping the others.
  void set_state(const std::string& key, const std::string& value) const {
    std::vector<std::string> lines;
    {
      std::ifstream in(state_file());
      for (std::string line; std::getline(in, line);) {
        if (line.rfind(key + " ", 0) != 0) lines.push_back(line);
      }
    }
    lines.push_back(key + " " + value);
    std::ofstream out(state_file(), std::ios::trunc);
    for (const auto& line : lines) out << line << "\n";
  }
  std::string state() const {
    std::ifstream in(state_file());
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  TempDir dir_;
  std::vector<std::string> names_;
};

}  // namespace jetchar::testing
