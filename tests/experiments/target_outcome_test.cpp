#include "experiments/target_outcome.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

proto::EpochResult epoch(std::uint32_t index, double e2e_s, std::optional<double> energy_j, std::optional<double> f1,
                         bool squad = false) {
  proto::EpochResult e;
  e.set_epoch(index);
  e.set_e2e_s(e2e_s);
  e.set_start_s(index * 12.0);  // 10 s epochs, 2 s of evaluation after each
  if (energy_j) e.set_energy_j(*energy_j);
  if (f1) squad ? e.set_eval_squad_f1(*f1) : e.set_eval_entity_f1(*f1);
  return e;
}

TEST(TargetOutcomeTest, TheFirstEpochAtTheTargetGivesTimeAndEnergy) {
  google::protobuf::RepeatedPtrField<proto::EpochResult> epochs;
  *epochs.Add() = epoch(0, 10, 100, 0.70);
  *epochs.Add() = epoch(1, 10, 90, 0.885);  // exactly the target: reached
  *epochs.Add() = epoch(2, 10, 95, 0.91);
  const auto outcome = target_outcome(epochs, 0.885);
  EXPECT_EQ(outcome.target_f1(), 0.885);
  ASSERT_TRUE(outcome.has_epoch());
  EXPECT_EQ(outcome.epoch(), 1u);
  EXPECT_DOUBLE_EQ(outcome.time_s(), 20);
  EXPECT_DOUBLE_EQ(outcome.energy_j(), 190);
  EXPECT_DOUBLE_EQ(outcome.wall_s(), 22);  // epoch 1 starts at 12 s (after epoch 0's evaluation)
  EXPECT_DOUBLE_EQ(outcome.best_f1(), 0.91);
}

TEST(TargetOutcomeTest, NotReachedLeavesTheCostUnsetAndKeepsTheBest) {
  google::protobuf::RepeatedPtrField<proto::EpochResult> epochs;
  *epochs.Add() = epoch(0, 10, 100, 0.60, true);
  *epochs.Add() = epoch(1, 10, 100, 0.75, true);
  const auto outcome = target_outcome(epochs, 0.9);
  EXPECT_FALSE(outcome.has_epoch());
  EXPECT_FALSE(outcome.has_time_s());
  EXPECT_FALSE(outcome.has_energy_j());
  EXPECT_DOUBLE_EQ(outcome.best_f1(), 0.75);
}

TEST(TargetOutcomeTest, AnEpochWithoutEnergyLeavesTheEnergyUnsetButNotTheTime) {
  google::protobuf::RepeatedPtrField<proto::EpochResult> epochs;
  *epochs.Add() = epoch(0, 10, std::nullopt, 0.5);
  *epochs.Add() = epoch(1, 8, 80, 0.95);
  const auto outcome = target_outcome(epochs, 0.9);
  EXPECT_EQ(outcome.epoch(), 1u);
  EXPECT_DOUBLE_EQ(outcome.time_s(), 18);
  EXPECT_FALSE(outcome.has_energy_j());
}

TEST(TargetOutcomeTest, EntityF1GoesBeforeSquadF1AndBadTargetsAreRefused) {
  proto::EpochResult both = epoch(0, 1, 1, 0.2);
  both.set_eval_squad_f1(0.9);
  EXPECT_EQ(dev_f1(both), 0.2);
  EXPECT_FALSE(dev_f1(epoch(0, 1, 1, std::nullopt)).has_value());
  google::protobuf::RepeatedPtrField<proto::EpochResult> epochs;
  EXPECT_THROW(target_outcome(epochs, 0), std::invalid_argument);
  EXPECT_THROW(target_outcome(epochs, 88.5), std::invalid_argument);
  EXPECT_FALSE(target_outcome(epochs, 0.5).has_epoch());
}

}  // namespace
}  // namespace jetchar::experiments
