#include "sysfs/unique_fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <utility>

namespace jetchar::sysfs {
namespace {

// Whether `fd` is an open descriptor of this process (fcntl fails with EBADF otherwise).
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

int open_null() {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  return fd;
}

TEST(UniqueFd, ClosesWhenItGoesAway) {
  const int fd = open_null();
  {
    const UniqueFd owner(fd);
    EXPECT_TRUE(owner.valid());
    EXPECT_EQ(owner.get(), fd);
    EXPECT_TRUE(is_open(fd));
  }
  EXPECT_FALSE(is_open(fd));
}

TEST(UniqueFd, ClosesWhenAnExceptionLeavesTheScope) {
  const int fd = open_null();
  try {
    const UniqueFd owner(fd);
    throw std::runtime_error("between open and close");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(is_open(fd));
}

TEST(UniqueFd, AFailedOpenOwnsNothing) {
  const UniqueFd none(::open("/nonexistent/jetchar-unique-fd-test", O_RDONLY | O_CLOEXEC));
  EXPECT_FALSE(none.valid());
  EXPECT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(none.get(), -1);
  UniqueFd empty;
  EXPECT_EQ(empty.close(), 0);  // nothing to close is not an error
}

TEST(UniqueFd, MoveHandsOwnershipOver) {
  const int fd = open_null();
  UniqueFd first(fd);
  UniqueFd second(std::move(first));
  EXPECT_FALSE(first.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is what is tested
  EXPECT_EQ(second.get(), fd);
  UniqueFd third;
  third = std::move(second);
  EXPECT_EQ(third.get(), fd);
  EXPECT_TRUE(is_open(fd));
  third = UniqueFd();  // assigning over an owner closes what it owned
  EXPECT_FALSE(is_open(fd));
}

TEST(UniqueFd, ReleaseKeepsTheDescriptorOpen) {
  const int fd = open_null();
  {
    UniqueFd owner(fd);
    EXPECT_EQ(owner.release(), fd);
    EXPECT_FALSE(owner.valid());
  }
  EXPECT_TRUE(is_open(fd));
  ::close(fd);
}

TEST(UniqueFd, ResetClosesTheOldDescriptor) {
  const int a = open_null();
  const int b = open_null();
  UniqueFd owner(a);
  owner.reset(b);
  EXPECT_FALSE(is_open(a));
  EXPECT_EQ(owner.get(), b);
  owner.reset();
  EXPECT_FALSE(is_open(b));
  EXPECT_FALSE(owner.valid());
}

TEST(UniqueFd, CloseReportsEbadfForANumberThatIsNotOpen) {
  const int fd = open_null();
  ASSERT_EQ(::close(fd), 0);  // the number is free now: owning it is a bug close() must report
  UniqueFd stale(fd);
  EXPECT_EQ(stale.close(), EBADF);
  EXPECT_FALSE(stale.valid());
  EXPECT_EQ(stale.close(), 0);  // closed once, never again
}

TEST(UniqueFd, CloseReportsSuccess) {
  const int fd = open_null();
  UniqueFd owner(fd);
  EXPECT_EQ(owner.close(), 0);
  EXPECT_FALSE(owner.valid());
  EXPECT_FALSE(is_open(fd));
}

}  // namespace
}  // namespace jetchar::sysfs
