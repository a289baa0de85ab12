#include "analysis/energy_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace jetchar::analysis {
namespace {

RunRecord epoch(const std::string& device, double energy_j, std::optional<double> meter_j) {
  RunRecord r;
  r.workload = "lenet";
  r.device = device;
  r.epoch = 1;
  r.epoch_time_s = 2.0;
  r.epoch_energy_j = energy_j;
  r.avg_power_w = energy_j / 2.0;
  r.energy_source = device == "RTX 3090" ? "NVML energy counter" : "VDD_IN";
  if (meter_j) {
    r.meter = "hioki:/dev/ttyUSB0";
    r.metrics["meter_energy_j"] = *meter_j;
    r.metrics["meter_avg_power_w"] = *meter_j / 2.0;
  }
  return r;
}

TEST(EnergySource, NamesParseBothWays) {
  EXPECT_EQ(parse_energy_source("board"), EnergySource::kBoard);
  EXPECT_EQ(parse_energy_source("meter"), EnergySource::kMeter);
  EXPECT_FALSE(parse_energy_source("wall"));
  EXPECT_EQ(to_string(EnergySource::kMeter), "meter");
  EXPECT_EQ(to_string(EnergySource::kBoard), "board");
}

TEST(EnergySource, TheMeterReplacesTheBoardsEnergyAndNeverFallsBackToIt) {
  std::vector<RunRecord> records = {epoch("AGX Orin", 20, 30), epoch("RTX 3090", 60, std::nullopt)};
  records[1].metrics["energy_per_query_j"] = 0.5;
  auto board = records;
  use_energy_source(board, EnergySource::kBoard);
  EXPECT_EQ(board[0].epoch_energy_j, 20);
  EXPECT_EQ(board[1].metrics.count("energy_per_query_j"), 1u);

  use_energy_source(records, EnergySource::kMeter);
  EXPECT_EQ(records[0].epoch_energy_j, 30);
  EXPECT_EQ(records[0].avg_power_w, 15);
  EXPECT_FALSE(records[1].epoch_energy_j);
  EXPECT_FALSE(records[1].avg_power_w);
  EXPECT_FALSE(records[1].power_w()) << "no energy, so no power from energy over time either";
  EXPECT_EQ(records[1].metrics.count("energy_per_query_j"), 0u);
}

TEST(EnergySource, NoMeterAnywhereIsAnErrorSayingHowToGetOne) {
  std::vector<RunRecord> records = {epoch("AGX Orin", 20, std::nullopt)};
  records.push_back(epoch("AGX Orin", 20, 30));
  records.back().status = RunStatus::kFailed;  // a failed run's meter does not count
  EXPECT_THAT([&] { use_energy_source(records, EnergySource::kMeter); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("measurement.meters")));
}

TEST(EnergySource, EachKindNamesWhereItsEnergyComesFrom) {
  const std::vector<RunRecord> records = {epoch("AGX Orin", 20, 30), epoch("RTX 3090", 60, std::nullopt)};
  EXPECT_EQ(energy_sources_text(energy_sources_by_kind(records, EnergySource::kBoard)),
            "AGX Orin: VDD_IN; RTX 3090: NVML energy counter");
  EXPECT_EQ(energy_sources_text(energy_sources_by_kind(records, EnergySource::kMeter)),
            "AGX Orin: meter hioki:/dev/ttyUSB0; RTX 3090: not measured");
}

}  // namespace
}  // namespace jetchar::analysis
