#include "analysis/pareto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

std::vector<std::size_t> brute_force_front(const std::vector<TimeEnergy>& pts) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < pts.size() && !dominated; ++j) dominated = j != i && dominates(pts[j], pts[i]);
    if (!dominated) front.push_back(i);
  }
  return front;
}

TEST(Pareto, HandMadeFront) {
  std::vector<TimeEnergy> pts = {{10, 100}, {20, 50}, {15, 120}, {30, 50}, {5, 200}, {20, 50}};
  auto front = pareto_front(pts);
  // (15,120) is beaten by (10,100); (30,50) by (20,50); the two (20,50) are equal and both stay.
  EXPECT_EQ(front, (std::vector<std::size_t>{4, 0, 1, 5}));
}

TEST(Pareto, MatchesBruteForceOnRandomSets) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<int> size(0, 60);
    // Small integer grids force ties in time, in energy and in both.
    std::uniform_int_distribution<int> coarse(1, trial % 2 ? 8 : 1000);
    std::vector<TimeEnergy> pts(static_cast<std::size_t>(size(rng)));
    for (auto& p : pts) p = {static_cast<double>(coarse(rng)), static_cast<double>(coarse(rng))};
    auto fast = pareto_front(pts);
    auto slow = brute_force_front(pts);
    std::sort(fast.begin(), fast.end());
    ASSERT_EQ(fast, slow) << "trial " << trial;
  }
}

TEST(Pareto, GroupsPerWorkloadAndPerAxis) {
  auto modes = testing::orin_like_grid();
  modes.resize(20);
  auto a = testing::synthetic_points(modes, {}, 1, "lenet");
  auto b = testing::synthetic_points(modes, {}, 2, "resnet18");
  std::vector<ConfigPoint> all;
  for (auto* set : {&a, &b}) {
    for (std::size_t i = 0; i < set->size(); ++i) {
      ConfigPoint p = (*set)[i];
      p.key.axes["batch"] = i % 2 ? "16" : "32";
      all.push_back(p);
    }
  }
  all.back().energy_j.reset();  // cannot be placed on a front
  EXPECT_EQ(pareto_groups(all).size(), 2u);
  auto per_batch = pareto_groups(all, {"batch"});
  ASSERT_EQ(per_batch.size(), 4u);
  EXPECT_EQ(per_batch[0].label(), "lenet batch=16");
  std::size_t total = 0;
  for (const auto& g : per_batch) {
    total += g.points.size();
    std::vector<TimeEnergy> te;
    for (const auto& p : g.points) te.push_back({p.time_s, *p.energy_j});
    auto expected = brute_force_front(te);
    auto got = g.front;
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, expected) << g.label();
    EXPECT_TRUE(std::is_sorted(g.points.begin(), g.points.end(),
                               [](const auto& x, const auto& y) { return x.time_s < y.time_s; }));
  }
  EXPECT_EQ(total, 39u);
}

}  // namespace
}  // namespace jetchar::analysis
