#include "experiments/frontier/address_space_budget.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace jetchar::experiments {
namespace {

TEST(AddressSpaceBudgetTest, ReadsItsOwnStatus) {
  const sysfs::Root root;
  const auto vm = own_status_kib(root, "VmSize");
  const auto rss = own_status_kib(root, "VmRSS");
  ASSERT_TRUE(vm);
  ASSERT_TRUE(rss);
  EXPECT_GE(*vm, *rss);
  EXPECT_FALSE(own_status_kib(root, "NoSuchField"));
}

// In a forked child (the limit cannot be undone): new mappings within the budget succeed, one beyond
// it fails with ENOMEM. The mappings are made with mmap, not malloc: a test binary that ran others
// before this one can hold a heap with more than 96 MiB free, which malloc serves without mapping
// anything new (the limit bounds address space, and that space was mapped before the baseline).
TEST(AddressSpaceBudgetTest, TheLimitIsTheBaselinePlusTheBudget) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    try {
      const sysfs::Root root;
      const auto limit = limit_address_space(root, 64ull << 20);
      rlimit now{};
      ::getrlimit(RLIMIT_AS, &now);
      if (now.rlim_cur != limit.limit_bytes || limit.limit_bytes != limit.baseline_vm_bytes + (64ull << 20)) code = 10;
      const auto map = [](std::size_t bytes) {
        return ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      };
      void* within = map(32ull << 20);  // 32 MiB of the 64
      if (within == MAP_FAILED) {
        code = 11;
      } else {
        static_cast<char*>(within)[(32ull << 20) - 1] = 1;
      }
      errno = 0;
      if (void* beyond = map(96ull << 20); beyond != MAP_FAILED || errno != ENOMEM) code = 12;
    } catch (...) {
      code = 13;
    }
    std::_Exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: limit not as reported, 11: within failed, 12: beyond fitted, 13: threw";
}

TEST(AddressSpaceBudgetTest, AZeroBudgetIsRefused) {
  const sysfs::Root root;
  EXPECT_THROW(limit_address_space(root, 0), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
