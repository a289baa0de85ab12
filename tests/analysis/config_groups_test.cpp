#include "analysis/config_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace jetchar::analysis {
namespace {

ConfigPoint point(const std::string& workload, std::map<std::string, std::string> axes) {
  ConfigPoint p;
  p.key.workload = workload;
  p.key.axes = std::move(axes);
  return p;
}

TEST(ConfigGroupsTest, GroupsByWorkloadAndThePerAxesKeepingTheOrderWithin) {
  const std::vector<ConfigPoint> points = {
      point("lenet5", {{"batch", "16"}, {"workers", "0"}}), point("resnet18", {{"batch", "16"}}),
      point("lenet5", {{"batch", "32"}, {"workers", "1"}}), point("lenet5", {{"batch", "16"}, {"workers", "2"}}),
      point("lenet5", {{"workers", "3"}})};
  const auto groups = group_configurations(points, {"batch"});
  ASSERT_EQ(groups.size(), 4u);
  // A point without the axis groups under "", which sorts first.
  EXPECT_EQ(groups[0].label(), "lenet5 batch=");
  EXPECT_EQ(groups[1].label(), "lenet5 batch=16");
  ASSERT_EQ(groups[1].points.size(), 2u);
  EXPECT_EQ(groups[1].points[0].key.axes.at("workers"), "0");
  EXPECT_EQ(groups[1].points[1].key.axes.at("workers"), "2");
  EXPECT_EQ(groups[2].label(), "lenet5 batch=32");
  EXPECT_EQ(groups[3].label(), "resnet18 batch=16");
  // No per axes: one group per workload.
  EXPECT_EQ(group_configurations(points, {}).size(), 2u);
  EXPECT_TRUE(group_configurations({}, {"batch"}).empty());
}

TEST(ConfigGroupsTest, OnlyAxesThatTellPointsApartAreShown) {
  const std::vector<ConfigPoint> points = {point("m", {{"batch", "16"}, {"cache", "warm"}, {"workers", "0"}}),
                                           point("m", {{"batch", "16"}, {"cache", "warm"}, {"workers", "1"}}),
                                           point("m", {{"batch", "16"}})};
  EXPECT_EQ(recorded_axes(points), (std::set<std::string>{"batch", "cache", "workers"}));
  // cache is constant where present but missing from one point: that tells it apart too.
  const auto shown = varying_axes(points);
  EXPECT_EQ(shown, (std::set<std::string>{"cache", "workers"}));
  EXPECT_EQ(axes_label(points[1].key, shown), "cache=warm workers=1");
  EXPECT_EQ(axes_label(points[2].key, shown), "");
  EXPECT_TRUE(varying_axes(std::vector<ConfigPoint>{points[0]}).empty());
}

TEST(ConfigGroupsTest, AFleetOfBoardKindsIsGroupedPerKindFirst) {
  const std::vector<ConfigPoint> single = {point("m", {{"batch", "16"}})};
  EXPECT_EQ(per_board_kind(single, {"batch"}), (std::vector<std::string>{"batch"}));
  const std::vector<ConfigPoint> fleet = {point("m", {{"board", "agx-orin"}}), point("m", {{"board", "orin-nano"}})};
  EXPECT_EQ(per_board_kind(fleet, {"batch"}), (std::vector<std::string>{"board", "batch"}));
  EXPECT_EQ(per_board_kind(fleet, {"batch", "board"}), (std::vector<std::string>{"batch", "board"}));
}

}  // namespace
}  // namespace jetchar::analysis
