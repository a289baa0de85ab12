#include "analysis/results_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "analysis/input_error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;

constexpr const char* kCsv =
    "workload,mode,cpu_cores,cpu_freq_khz,gpu_freq_hz,emc_freq_hz,batch,workers,epoch,epoch_time_s,epoch_energy_j,"
    "avg_power_w,status\n"
    "# a comment line\n"
    "resnet18,MAXN,12,2201600,1300500000,3199000000,16,4,1,120.5,2410,20.0,OK\n"
    "\n"
    "resnet18,15W,4,1113600,420750000,2133000000,16,4,1,300,,,oom\n";

TEST(ResultsFile, ReadsCsvColumnsWithUnits) {
  auto records = parse_results_csv(kCsv, "runs.csv");
  ASSERT_EQ(records.size(), 2u);
  const RunRecord& r = records[0];
  EXPECT_EQ(r.workload, "resnet18");
  EXPECT_EQ(r.mode.name, "MAXN");
  EXPECT_EQ(r.mode.cpu_cores, 12);
  EXPECT_EQ(r.mode.cpu_freq_khz, 2201600);
  EXPECT_EQ(r.mode.gpu_freq_khz, 1300500);  // Hz → kHz
  EXPECT_EQ(r.mode.emc_freq_khz, 3199000);
  EXPECT_EQ(r.axes.at("batch"), "16");
  EXPECT_EQ(r.axes.at("workers"), "4");
  EXPECT_EQ(r.epoch, 1);
  EXPECT_DOUBLE_EQ(*r.epoch_time_s, 120.5);
  EXPECT_DOUBLE_EQ(*r.epoch_energy_j, 2410);
  EXPECT_EQ(r.status, RunStatus::kOk);
  EXPECT_EQ(r.source, "runs.csv:3");
  // Empty cells are missing, not zero.
  EXPECT_FALSE(records[1].epoch_energy_j);
  EXPECT_FALSE(records[1].avg_power_w);
  EXPECT_EQ(records[1].status, RunStatus::kOom);
  EXPECT_EQ(records[1].source, "runs.csv:5");
}

TEST(ResultsFile, UnitSuffixedUnknownColumnsAreMetricsOthersAreAxes) {
  auto records = parse_results_csv(
      "workload,epoch_time_s,incremental_energy_j,medium,cache,gpu_freq_mhz\nlenet,1.5,3.25,nvme,cold,114.75\n",
      "r.csv");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_DOUBLE_EQ(records[0].metrics.at("incremental_energy_j"), 3.25);
  EXPECT_EQ(records[0].axes.at("medium"), "nvme");
  EXPECT_EQ(records[0].axes.at("cache"), "cold");
  EXPECT_EQ(records[0].axes.count("incremental_energy_j"), 0u);
  EXPECT_EQ(records[0].mode.gpu_freq_khz, 114750);
}

TEST(ResultsFile, QuotedFieldsAndCrlf) {
  auto records = parse_results_csv("workload,epoch_time_s,medium\r\n\"bert, base\",2,\"SD \"\"card\"\"\"\r\n", "q.csv");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].workload, "bert, base");
  EXPECT_EQ(records[0].axes.at("medium"), "SD \"card\"");
}

void expect_error(const std::string& text, const std::string& needle, const char* name = "bad.csv") {
  try {
    parse_results_csv(text, name);
    FAIL() << "no error for: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(needle));
    EXPECT_THAT(e.what(), HasSubstr(name));
  }
}

TEST(ResultsFile, ErrorsNameFileLineColumnAndValue) {
  expect_error("workload,epoch_time_s\nresnet,abc\n", "bad.csv:2: column 'epoch_time_s': 'abc' is not a number");
  expect_error("workload,epoch_time_s\nresnet,-1\n", "bad.csv:2: column 'epoch_time_s': -1 is negative");
  expect_error("workload,cpu_cores\nresnet,2.5\n", "'2.5' is not valid; expected a core count");
  expect_error("workload,cpu_cores\nresnet,99999999999\n",
               "'99999999999' is not valid; expected a core count from 1 to 4096");
  expect_error("workload,status\nresnet,DONE\n", "'DONE' is not a run status; expected OK, OOM, FAILED or INVALID");
  expect_error("workload,epoch_time_s\nresnet,1,2\n", "bad.csv:2: 3 fields, but the header has 2 columns");
  expect_error("epoch_time_s\n1\n", "no 'workload' column");
  expect_error("workload,epoch_time_s\n,1\n", "bad.csv:2: column 'workload': the workload is missing");
  expect_error("workload,workload\n", "column 'workload' appears twice");
  expect_error("workload,\"x\n1\n", "a quoted field is never closed");
  expect_error("", "is empty");
  expect_error("workload,gpu_freq_hz\nr,0\n", "0 is not a frequency");
  expect_error("workload,epoch_time_s\nr,nan\n", "'nan' is not a number");
}

TEST(ResultsFile, ReadsJsonlWithTheSameKeys) {
  const std::string text =
      "{\"workload\":\"mobilenet\",\"cpu_cores\":8,\"cpu_freq_khz\":1984000,\"gpu_freq_hz\":930750000,"
      "\"emc_freq_hz\":3199000000,\"workers\":2,\"epoch_time_s\":55.5,\"avg_power_w\":18.5,\"latency_p99_ms\":null}\n"
      "\n"
      "{\"workload\":\"mobilenet\",\"epoch_time_s\":60,\"status\":\"FAILED\"}\n";
  auto records = parse_results_jsonl(text, "r.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].mode.gpu_freq_khz, 930750);
  EXPECT_EQ(records[0].axes.at("workers"), "2");
  EXPECT_FALSE(records[0].latency.p99);
  EXPECT_DOUBLE_EQ(*records[0].power_w(), 18.5);
  EXPECT_EQ(records[1].status, RunStatus::kFailed);
  EXPECT_EQ(records[1].source, "r.jsonl:3");
}

TEST(ResultsFile, JsonlErrorsNameLineAndKey) {
  try {
    parse_results_jsonl("{\"workload\":\"a\"}\n{\"workload\":\"a\",\"epoch_time_s\":\"slow\"}\n", "r.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("r.jsonl:2: column 'epoch_time_s': 'slow' is not a number"));
  }
  EXPECT_THROW(parse_results_jsonl("{\"workload\": [1]}\n", "r.jsonl"), InputError);
  EXPECT_THROW(parse_results_jsonl("[1,2]\n", "r.jsonl"), InputError);
  try {
    parse_results_jsonl("{\"workload\":\"a\"}\n{oops\n", "r.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("r.jsonl:2: not valid JSON"));
  }
  // A number JSON can write but a double cannot hold (found by fuzz/analysis_results_fuzz): bad
  // input naming the line, not nlohmann's out_of_range escaping.
  try {
    parse_results_jsonl("{\"workload\":\"a\",\"epoch_time_s\":-2e9999}\n", "r.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("r.jsonl:1: not valid JSON"));
  }
}

TEST(ResultsFile, LoadDispatchesOnExtensionAndNamesMissingFile) {
  jetchar::testing::TempDir dir;
  auto csv = dir.write("a.csv", "workload,epoch_time_s\nx,1\n");
  auto jsonl = dir.write("a.jsonl", "{\"workload\":\"x\",\"epoch_time_s\":2}\n");
  EXPECT_DOUBLE_EQ(*load_results(csv).at(0).epoch_time_s, 1);
  EXPECT_DOUBLE_EQ(*load_results(jsonl).at(0).epoch_time_s, 2);
  try {
    load_results(dir.path() / "missing.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing.csv: cannot be read"));
  }
}

// The columns `jetchar results export --csv` writes (results/export.cpp): every column
// must land where analysis expects it, and informational ones must not become swept axes.
constexpr const char* kExportColumns =
    "sweep,run_id,repetition,status,reason,workload,model,dataset,task,mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,"
    "emc_freq_mhz,batch,accumulate,workers,precision,cache,medium,device,board_kind,simulated,energy_source,async,"
    "baseload_power_w,adaptive_minibatches,adaptive_basis,gpio_marker,epoch,epoch_start_s,e2e_s,stall_s,compute_s,"
    "samples,energy_j,incremental_energy_j,energy_per_sample_j,avg_power_w,loss,accuracy,residency_before_ratio,"
    "residency_after_ratio,read_bytes,meter,meter_energy_j,meter_avg_power_w,meter_gap_s,phase,latency_avg_ms,"
    "latency_p50_ms,latency_p90_ms,latency_p95_ms,latency_p99_ms,latency_max_ms,throughput_samples_per_s,"
    "peak_rss_bytes";

// One export row: the given cells, every other column empty.
std::string export_row(const std::map<std::string, std::string>& cells) {
  std::string row, column;
  std::size_t used = 0;
  std::istringstream columns(kExportColumns);
  while (std::getline(columns, column, ',')) {
    if (!row.empty() || column != "sweep") row += ',';
    if (auto cell = cells.find(column); cell != cells.end()) {
      row += cell->second;
      ++used;
    }
  }
  EXPECT_EQ(used, cells.size()) << "a cell names a column the export does not have";
  return row + "\n";
}

TEST(ResultsFile, ReadsTheResultsExportLayout) {
  std::string text = std::string(kExportColumns) + "\n" +
                     export_row({{"sweep", "s1"},
                                 {"run_id", "0001-r0"},
                                 {"repetition", "0"},
                                 {"status", "OK"},
                                 {"workload", "lenet5/idx"},
                                 {"model", "lenet5"},
                                 {"dataset", "idx:/data"},
                                 {"task", "TRAIN"},
                                 {"mode", "custom"},
                                 {"cpu_cores", "4"},
                                 {"cpu_freq_mhz", "1510.4"},
                                 {"gpu_freq_mhz", "624.75"},
                                 {"emc_freq_mhz", "1600"},
                                 {"batch", "32"},
                                 {"accumulate", "1"},
                                 {"workers", "2"},
                                 {"precision", "FP32"},
                                 {"cache", "DROP"},
                                 {"medium", "NVMe"},
                                 {"device", "AGX Orin"},
                                 {"board_kind", "simulated"},
                                 {"simulated", "true"},
                                 {"energy_source", "VDD_IN"},
                                 {"async", "false"},
                                 {"baseload_power_w", "7.5"},
                                 {"adaptive_minibatches", "137"},
                                 {"adaptive_basis", "time+power"},
                                 {"gpio_marker", "gpiochip0:5"},
                                 {"epoch", "1"},
                                 {"epoch_start_s", "0.25"},
                                 {"e2e_s", "12.5"},
                                 {"stall_s", "1.5"},
                                 {"compute_s", "10.5"},
                                 {"samples", "60000"},
                                 {"energy_j", "250"},
                                 {"incremental_energy_j", "156.25"},
                                 {"energy_per_sample_j", "0.004"},
                                 {"avg_power_w", "20"},
                                 {"loss", "0.3"},
                                 {"accuracy", "0.9"},
                                 {"residency_before_ratio", "0"},
                                 {"residency_after_ratio", "1"},
                                 {"read_bytes", "1234"},
                                 {"meter", "ina:/dev/ttyACM0"},
                                 {"meter_energy_j", "262.5"},
                                 {"meter_avg_power_w", "21"},
                                 {"meter_gap_s", "0"},
                                 {"peak_rss_bytes", "1000"}}) +
                     export_row({{"sweep", "s1"},
                                 {"run_id", "0002-r0"},
                                 {"repetition", "0"},
                                 {"status", "RUN_STATUS_UNSPECIFIED"},
                                 {"workload", "bert/squad"},
                                 {"model", "bert"},
                                 {"dataset", "squad:/d"},
                                 {"task", "INFER"},
                                 {"mode", "MAXN"},
                                 {"batch", "8"},
                                 {"accumulate", "1"},
                                 {"workers", "0"},
                                 {"precision", "FP16"},
                                 {"cache", "KEEP"},
                                 {"medium", "SD"},
                                 {"device", "AGX Orin"},
                                 {"board_kind", "simulated"},
                                 {"simulated", "true"},
                                 {"energy_source", "VDD_IN"},
                                 {"async", "false"},
                                 {"latency_avg_ms", "5"},
                                 {"latency_p50_ms", "4.8"},
                                 {"latency_p90_ms", "6"},
                                 {"latency_p95_ms", "6.5"},
                                 {"latency_p99_ms", "8"},
                                 {"latency_max_ms", "9.5"},
                                 {"throughput_samples_per_s", "1600"},
                                 {"peak_rss_bytes", "2000"}});
  auto records = parse_results_csv(text, "export.csv");
  ASSERT_EQ(records.size(), 2u);
  const RunRecord& r = records[0];
  EXPECT_EQ(r.workload, "lenet5/idx");
  EXPECT_EQ(r.mode.cpu_freq_khz, 1510400);
  EXPECT_EQ(r.mode.gpu_freq_khz, 624750);
  EXPECT_EQ(r.mode.emc_freq_khz, 1600000);
  EXPECT_EQ(r.mode.label(), "4c/cpu1510/gpu625/emc1600MHz");  // "custom" shows its knobs
  EXPECT_DOUBLE_EQ(*r.epoch_time_s, 12.5);
  EXPECT_DOUBLE_EQ(*r.epoch_energy_j, 250);
  EXPECT_DOUBLE_EQ(*r.stall_s, 1.5);
  EXPECT_EQ(r.device, "AGX Orin");
  EXPECT_EQ(r.run_id, "0001-r0");
  // How many minibatches an adaptive run measured, its basis, the GPIO line and the meter describe
  // the run: as axes they would split one configuration into one per run. The task and the sync
  // mode are settings (results/schema/setting_columns.h).
  std::map<std::string, std::string> axes = {{"accumulate", "1"}, {"async", "false"}, {"batch", "32"},
                                             {"cache", "DROP"},   {"medium", "NVMe"}, {"precision", "FP32"},
                                             {"task", "TRAIN"},   {"workers", "2"}};
  EXPECT_EQ(r.axes, axes);
  EXPECT_DOUBLE_EQ(r.metrics.at("incremental_energy_j"), 156.25);
  EXPECT_DOUBLE_EQ(r.metrics.at("baseload_power_w"), 7.5);
  EXPECT_DOUBLE_EQ(r.metrics.at("meter_energy_j"), 262.5);
  EXPECT_EQ(r.metrics.count("epoch_start_s"), 0u);
  EXPECT_EQ(records[1].status, RunStatus::kInvalid);
  EXPECT_DOUBLE_EQ(*records[1].latency.p99, 8);
  EXPECT_FALSE(records[1].epoch_time_s);
}

}  // namespace
}  // namespace jetchar::analysis
