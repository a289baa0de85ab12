#include "sysfs/errno_name.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace jetchar::sysfs {
namespace {

TEST(ErrnoName, NamesAndParsesTheSameValue) {
  EXPECT_EQ(errno_name(EBUSY), "EBUSY");
  EXPECT_EQ(errno_from_name("EBUSY"), EBUSY);
  EXPECT_EQ(errno_name(524), "errno 524");
  EXPECT_FALSE(errno_from_name("ENOTANERRNO").has_value());
}

TEST(ErrnoName, TextIsStrerrorAndTheName) {
  EXPECT_EQ(errno_text(ENOENT), std::string(std::strerror(ENOENT)) + " (ENOENT)");
  EXPECT_EQ(errno_text(524), std::string(std::strerror(524)) + " (errno 524)");
}

}  // namespace
}  // namespace jetchar::sysfs
