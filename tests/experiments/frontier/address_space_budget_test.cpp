#include "experiments/frontier/address_space_budget.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <vector>

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

// In a forked child (the limit cannot be undone): allocations within the budget succeed, one
// beyond it fails as an allocation failure, not a crash.
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
      std::vector<char> within(32ull << 20, 1);  // touched: 32 MiB of the 64
      if (within.back() != 1) code = 11;
      try {
        std::vector<char> beyond(96ull << 20, 1);
        code = 12;  // 96 MiB fitted a 64 MiB budget
      } catch (const std::bad_alloc&) {
      }
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
