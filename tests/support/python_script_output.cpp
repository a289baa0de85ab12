#include "tests/support/python_script_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/support/build_tree.h"

namespace jetchar::testing {
namespace {

namespace fs = std::filesystem;

// FNV-1a: a name for the scripts' content that is the same in every process and build.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Holds an exclusive flock on a file while it lives.
class FileLock {
 public:
  explicit FileLock(const fs::path& file) : fd_(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw std::runtime_error(fmt::format("{}: cannot lock", file.string()));
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

std::optional<fs::path> python_script_output(const std::string& script, const std::string& arguments) {
  const fs::path source = source_dir() / script;
  // One thread for LibTorch and for OpenBLAS, whose products otherwise split over as many threads as
  // the machine has cores and sum in an order that differs by 1e-5 from a test's one-thread forward.
  const std::string environment = "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1";
  // The script and the modules beside it, which it may import (tiny_hf_distilbert.py imports
  // tiny_hf_bert.py): every .py file of its folder.
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::directory_iterator(source.parent_path())) {
    if (entry.path().extension() == ".py") scripts.push_back(entry.path());
  }
  std::sort(scripts.begin(), scripts.end());
  std::string inputs = arguments + '\0' + environment;
  for (const fs::path& file : scripts) inputs += '\0' + file.filename().string() + '\0' + read_all(file);
  const std::string key = fmt::format("{:016x}", fnv1a(inputs));
  const fs::path root = binary_dir() / "tests" / "python-output";
  const fs::path folder = root / fmt::format("{}-{}", fs::path(script).stem().string(), key);
  fs::create_directories(root);
  const FileLock lock(root / "lock");
  if (fs::exists(folder)) return folder;
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) return std::nullopt;
  // Written beside, then renamed: a run that fails or is killed leaves no folder that looks whole.
  const fs::path partial = root / fmt::format(".{}-{}.partial", folder.filename().string(), ::getpid());
  fs::remove_all(partial);
  fs::create_directories(partial);
  const std::string command = fmt::format("{} /usr/bin/python3 '{}' '{}' {} >/dev/null", environment, source.string(),
                                          partial.string(), arguments);
  if (std::system(command.c_str()) != 0) {
    fs::remove_all(partial);
    throw std::runtime_error(fmt::format("{} failed", command));
  }
  fs::rename(partial, folder);
  return folder;
}

void copy_files(const fs::path& folder, const fs::path& into, const std::vector<std::string>& except) {
  fs::create_directories(into);
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (std::find(except.begin(), except.end(), name) == except.end()) fs::copy_file(entry.path(), into / name);
  }
}

}  // namespace jetchar::testing
