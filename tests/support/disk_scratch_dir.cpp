#include "tests/support/disk_scratch_dir.h"

#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "tests/support/build_tree.h"

namespace jetchar::testing {

namespace fs = std::filesystem;

namespace {
constexpr long kTmpfsMagic = 0x01021994;
}

DiskScratchDir::DiskScratchDir() {
  for (const std::string& base : {std::string("/var/tmp"), binary_dir().string(), std::string("/tmp")}) {
    std::string pattern = base + "/jetchar-scratch-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) {
      path_ = pattern;
      return;
    }
  }
  throw std::runtime_error("cannot create a scratch directory");
}

DiskScratchDir::~DiskScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

bool DiskScratchDir::on_tmpfs() const {
  struct statfs info {};
  return ::statfs(path_.c_str(), &info) == 0 && static_cast<long>(info.f_type) == kTmpfsMagic;
}

fs::path DiskScratchDir::write(const std::string& name, std::size_t size_bytes) const {
  const fs::path file = path_ / name;
  fs::create_directories(file.parent_path());
  {
    std::ofstream out(file, std::ios::binary);
    const std::string chunk(64 * 1024, 'j');
    for (std::size_t written = 0; written < size_bytes; written += chunk.size()) {
      out.write(chunk.data(), static_cast<std::streamsize>(std::min(chunk.size(), size_bytes - written)));
    }
    if (!out) throw std::runtime_error("cannot write " + file.string());
  }
  ::sync();
  return file;
}

void read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string buffer(64 * 1024, '\0');
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
  }
}

}  // namespace jetchar::testing
