#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace jetchar::testing {
namespace {

// Before main, a test process whose TMPDIR is unset puts its scratch in memory: TMPDIR=/dev/shm
// where that is a tmpfs this process may write with at least 1 GiB free (Docker's 64 MiB one is
// left alone). TempDir, the simulated boards and board fixtures jetchar expands into the temporary
// folder, and every jetchar a test starts (which inherits it) then make their thousands of small
// files in memory: on the 2-core machine's ext4 disk, BoardInfoFixture.BoardsMatchTheReference
// spent 1.8-2.3 s in the kernel with /tmp, 0.12-0.20 s with /dev/shm. A test that needs a disk's
// behaviour takes a DiskScratchDir, which does not look at TMPDIR.
bool scratch_in_memory() {
  if (const char* tmpdir = std::getenv("TMPDIR"); tmpdir != nullptr && *tmpdir != '\0') return false;
  struct statfs info {};
  if (::statfs("/dev/shm", &info) != 0 || info.f_type != TMPFS_MAGIC || ::access("/dev/shm", W_OK) != 0) return false;
  if (static_cast<unsigned long long>(info.f_bavail) * static_cast<unsigned long long>(info.f_bsize) < (1ULL << 30)) {
    return false;
  }
  return ::setenv("TMPDIR", "/dev/shm", 0) == 0;
}

[[maybe_unused]] const bool kScratchInMemory = scratch_in_memory();

}  // namespace

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "jetchar-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::write(std::string_view relative, std::string_view content) const {
  auto file = path_ / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file;
}

}  // namespace jetchar::testing
