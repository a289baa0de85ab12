#include "sweeps/slurm/hostlist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace jetchar::sweeps {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Expected expansions are those of `scontrol show hostnames` (Slurm 22.05).
TEST(SlurmHostlist, ExpandsNamesAndBracketedRangesInOrder) {
  EXPECT_THAT(expand_hostlist("b1"), ElementsAre("b1"));
  EXPECT_THAT(expand_hostlist("b[1-3],c5"), ElementsAre("b1", "b2", "b3", "c5"));
  EXPECT_THAT(expand_hostlist("c5,b[1-3]"), ElementsAre("c5", "b1", "b2", "b3")) << "the order is kept";
  EXPECT_THAT(expand_hostlist("node[1,3,5-6]"), ElementsAre("node1", "node3", "node5", "node6"));
  EXPECT_THAT(expand_hostlist("jetson-[7]"), ElementsAre("jetson-7"));
  EXPECT_THAT(expand_hostlist("agx-orin-[2-3].lab"), ElementsAre("agx-orin-2.lab", "agx-orin-3.lab"))
      << "a suffix after the bracket";
  EXPECT_THAT(expand_hostlist("[1-2]"), ElementsAre("1", "2"));
  EXPECT_THAT(expand_hostlist("b2,b2"), ElementsAre("b2", "b2")) << "repeats are kept";
}

TEST(SlurmHostlist, ARangeKeepsTheWidthOfItsLowerBound) {
  EXPECT_THAT(expand_hostlist("n[08-11]"), ElementsAre("n08", "n09", "n10", "n11"));
  EXPECT_THAT(expand_hostlist("n[8-11]"), ElementsAre("n8", "n9", "n10", "n11"));
  EXPECT_THAT(expand_hostlist("n[009-010,7]"), ElementsAre("n009", "n010", "n7"));
}

TEST(SlurmHostlist, SeveralBracketsExpandLeftmostFirst) {
  EXPECT_THAT(expand_hostlist("r[1-2]n[1-2]"), ElementsAre("r1n1", "r1n2", "r2n1", "r2n2"));
  EXPECT_THAT(expand_hostlist("a[1-2]-ib[0,3],z"), ElementsAre("a1-ib0", "a1-ib3", "a2-ib0", "a2-ib3", "z"));
}

TEST(SlurmHostlist, BlanksSeparateNamesAsCommasDo) {
  EXPECT_THAT(expand_hostlist("b1 b[2-3]\n"), ElementsAre("b1", "b2", "b3"));
  EXPECT_THAT(expand_hostlist(",b1,,b2,"), ElementsAre("b1", "b2")) << "empty items are skipped";
}

std::string hostlist_error_of(const std::string& hostlist, std::size_t max_hosts = kMaxHostlistHosts) {
  try {
    expand_hostlist(hostlist, max_hosts);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SlurmHostlist, WhatIsNotAHostlistIsNamedWithWhatIsValid) {
  EXPECT_THAT(hostlist_error_of("b[1-3"), HasSubstr("hostlist 'b[1-3': a '[' that no ']' closes; valid: "));
  EXPECT_THAT(hostlist_error_of("b1-3]"), HasSubstr("a ']' that no '[' opened"));
  EXPECT_THAT(hostlist_error_of("b[1-[2]]"), HasSubstr("a '[' inside a bracket"));
  EXPECT_THAT(hostlist_error_of("b[]"), HasSubstr("an empty bracket"));
  EXPECT_THAT(hostlist_error_of("b[3-1]"), HasSubstr("range '3-1' ends below its start"));
  EXPECT_THAT(hostlist_error_of("b[a-c]"), HasSubstr("range 'a-c' is not N or N-M"));
  EXPECT_THAT(hostlist_error_of("b[1-]"), HasSubstr("range '1-' is not N or N-M"));
  EXPECT_THAT(hostlist_error_of("b[-1]"), HasSubstr("range '-1' is not N or N-M"));
  EXPECT_THAT(hostlist_error_of("b[1,,2]"), HasSubstr("range '' is not N or N-M"));
  EXPECT_THAT(hostlist_error_of("b[1234567890123456789]"), HasSubstr("is not N or N-M")) << "too long to be a number";
  EXPECT_THAT(hostlist_error_of(""), HasSubstr("hostlist '': no name"));
  EXPECT_THAT(hostlist_error_of(" , "), HasSubstr("no name"));
  EXPECT_THAT(hostlist_error_of("b[1-5]", 4), HasSubstr("more than 4 names"));
  EXPECT_THAT(hostlist_error_of("b[1-2],c[1-3]", 4), HasSubstr("more than 4 names"));
  EXPECT_THAT(hostlist_error_of("r[1-3]n[1-2]", 5), HasSubstr("more than 5 names"));
  EXPECT_THAT(hostlist_error_of("b[0-999999999999]"), HasSubstr("more than 65536 names")) << "refused before expanding";
  EXPECT_EQ(expand_hostlist("b[1-4]", 4).size(), 4U);
}

}  // namespace
}  // namespace jetchar::sweeps
