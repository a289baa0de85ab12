// J/query of an inference run: the timed span's board energy over its queries, a query one batch.
#include "experiments/inference/query_energy.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

jetson::energy::WindowEnergy span(std::optional<double> total_mj, std::optional<double> incremental_mj = {}) {
  jetson::energy::WindowEnergy e;
  e.name = "queries";
  e.total.label = "board input VDD_IN";
  e.total_energy_mj = total_mj;
  e.incremental_energy_mj = incremental_mj;
  return e;
}

TEST(QueryEnergyTest, TheSpansEnergyOverItsQueriesAndOverTheirSamples) {
  const auto energy = query_energy(span(2000.0, 500.0), 4, 8);  // 2 J over 4 queries of 8 samples
  ASSERT_TRUE(energy);
  EXPECT_DOUBLE_EQ(energy->energy_j, 2.0);
  EXPECT_DOUBLE_EQ(energy->per_query_j, 0.5);
  EXPECT_DOUBLE_EQ(energy->per_sample_j, 0.0625);
  ASSERT_TRUE(energy->incremental_per_query_j);
  EXPECT_DOUBLE_EQ(*energy->incremental_per_query_j, 0.125);
  EXPECT_EQ(energy->source, "board input VDD_IN");
  const auto json = to_json(*energy);
  EXPECT_EQ(json["per_query_j"], 0.5);
  EXPECT_EQ(json["queries"], 4);
  EXPECT_EQ(json["source"], "board input VDD_IN");
  EXPECT_EQ(json["query"], "one batch of batch_size samples; energy over the timed queries, warm-up excluded");
  EXPECT_TRUE(to_json(*query_energy(span(2000.0), 4, 8))["incremental_per_query_j"].is_null());
}

TEST(QueryEnergyTest, NoTotalOrNoQueryGivesNone) {
  EXPECT_FALSE(query_energy(span(std::nullopt), 4, 8));  // a rail did not cover the span
  EXPECT_FALSE(query_energy(span(2000.0), 0, 8));
  EXPECT_FALSE(query_energy(span(2000.0), 4, 0));
}

}  // namespace
}  // namespace jetchar::experiments
