#include "results/export.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

std::vector<proto::RunResult> two_runs() {
  proto::RunResult train;
  train.set_sweep("s");
  train.set_run_id("0000-r0");
  train.set_status(proto::OK);
  train.mutable_context()->set_power_mode("MODE_30W");
  auto* spec = train.mutable_resolved();
  spec->mutable_workload()->set_model("lenet5");
  spec->mutable_workload()->set_dataset("fashion-mnist:/usr/share/datasets/fashion-mnist");
  spec->mutable_workload()->set_batch_size(16);
  spec->mutable_device()->set_gpu_freq_mhz(624.75);
  for (int i = 0; i < 2; ++i) {
    auto* e = train.add_epochs();
    e->set_epoch(i);
    e->set_e2e_s(10.5 + i);
    if (i == 1) {
      e->set_energy_j(55.25);
      e->set_start_s(10.75);
    }
  }
  proto::RunResult failed;
  failed.set_sweep("s");
  failed.set_run_id("0001-r0");
  failed.set_status(proto::FAILED);
  failed.set_reason("data set vanished, \"quoted\", with comma");
  failed.mutable_requested()->mutable_workload()->set_model("resnet18-cifar");
  return {train, failed};
}

TEST(ResultsExportTest, CsvHasOneRowPerEpochAndEmptyCellsForAbsentValues) {
  std::ostringstream out;
  EXPECT_EQ(export_results(two_runs(), ExportFormat::kCsv, out), 3u);
  std::istringstream lines(out.str());
  std::string header, first, second, third;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_EQ(header.rfind("sweep,run_id,repetition,status,reason,workload,model,dataset,task,mode,cpu_cores,", 0), 0u);
  EXPECT_NE(header.find(",epoch,epoch_start_s,e2e_s,stall_s,compute_s,samples,energy_j,"), std::string::npos);
  EXPECT_NE(first.find(",lenet5/fashion-mnist,"), std::string::npos);
  EXPECT_NE(first.find(",,624.75,"), std::string::npos);        // cpu_freq absent, gpu present
  EXPECT_NE(second.find(",1,10.75,11.5,"), std::string::npos);  // epoch, its start, e2e
  EXPECT_NE(first.find(",0,,10.5,"), std::string::npos);        // no start stored
  EXPECT_NE(second.find(",55.25,"), std::string::npos);
  EXPECT_NE(third.find("\"data set vanished, \"\"quoted\"\", with comma\""), std::string::npos);
}

TEST(ResultsExportTest, JsonlUsesNullForAbsentValues) {
  std::ostringstream out;
  export_results(two_runs(), ExportFormat::kJsonl, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("\"cpu_freq_mhz\":null"), std::string::npos);
  EXPECT_NE(text.find("\"gpu_freq_mhz\":624.75"), std::string::npos);
  EXPECT_NE(text.find("\"status\":\"FAILED\""), std::string::npos);
}

// A run of two ranks over two epochs, recorded by rank 0, rank 1 the slower.
proto::RunResult data_parallel_run() {
  proto::RunResult run = two_runs().front();
  auto* world = run.mutable_distributed();
  world->set_world_size(2);
  world->set_rank(0);
  world->set_slowest_rank(1);
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int rank = 0; rank < 2; ++rank) {
      auto* r = world->add_ranks();
      r->set_rank(rank);
      r->set_epoch(epoch);
      r->set_e2e_s(10.5 + epoch);
      r->set_samples(96);
      r->set_allreduce_s(0.25 + epoch + rank * 0.125);
      r->set_exposed_communication_s(0.0625 * (epoch + 1) + rank);
      r->set_allreduce_bytes(246824);
    }
  }
  return run;
}

std::map<std::string, std::string> csv_row(const std::string& header, const std::string& line) {
  std::map<std::string, std::string> row;
  std::istringstream names(header), cells(line);
  std::string name, cell;
  while (std::getline(names, name, ',') && std::getline(cells, cell, ',')) row[name] = cell;
  return row;
}

TEST(ResultsExportTest, ADataParallelEpochCarriesItsRecordingRanksCommunicationAfterTheOlderColumns) {
  std::ostringstream plain, parallel;
  export_results(two_runs(), ExportFormat::kCsv, plain);
  export_results({data_parallel_run()}, ExportFormat::kCsv, parallel);
  std::istringstream lines(parallel.str());
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header, plain.str().substr(0, plain.str().find('\n'))) << "one process's rows have the same columns";
  const std::string added = ",allreduce_s,exposed_communication_s,allreduce_bytes,slowest_rank,failed_rank";
  ASSERT_GT(header.size(), added.size());
  EXPECT_EQ(header.substr(header.size() - added.size()), added) << "after every older column";
  // Each epoch row holds rank 0's figures of that epoch, not rank 1's.
  EXPECT_EQ(csv_row(header, first)["allreduce_s"], "0.25");
  EXPECT_EQ(csv_row(header, second)["allreduce_s"], "1.25");
  EXPECT_EQ(csv_row(header, second)["exposed_communication_s"], "0.125");
  EXPECT_EQ(csv_row(header, first)["allreduce_bytes"], "246824");
  EXPECT_EQ(csv_row(header, first)["slowest_rank"], "1");
  EXPECT_EQ(csv_row(header, first)["failed_rank"], "");
  // One process: the columns are there and empty.
  std::istringstream plain_lines(plain.str());
  std::string plain_header, plain_first;
  std::getline(plain_lines, plain_header);
  std::getline(plain_lines, plain_first);
  EXPECT_EQ(plain_first.substr(plain_first.size() - 5), ",,,,,");
}

TEST(ResultsExportTest, RankRowsAreOnePerRankAndEpochOfDataParallelRunsOnly) {
  std::ostringstream csv;
  EXPECT_EQ(export_rank_epochs({two_runs().front(), data_parallel_run(), two_runs().back()}, ExportFormat::kCsv, csv),
            4u);
  std::istringstream lines(csv.str());
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header,
            "sweep,run_id,repetition,device,epoch,rank,world_size,recording_rank,stall_s,compute_s,e2e_s,samples,"
            "allreduce_s,exposed_communication_s,allreduce_bytes");
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(lines, line)) rows.push_back(csv_row(header, line));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1]["rank"], "1");
  EXPECT_EQ(rows[1]["epoch"], "0");
  EXPECT_EQ(rows[1]["recording_rank"], "false");
  EXPECT_EQ(rows[1]["exposed_communication_s"], "1.0625");
  EXPECT_EQ(rows[3]["run_id"], "0000-r0");
  EXPECT_EQ(rows[3]["allreduce_s"], "1.375");

  std::ostringstream none;
  EXPECT_EQ(export_rank_epochs(two_runs(), ExportFormat::kCsv, none), 0u);
  EXPECT_EQ(none.str(), "") << "no header without a row";
}

TEST(ResultsExportTest, TaskMetricsAndTimeToTargetFollowTheOlderColumns) {
  auto runs = two_runs();
  auto& train = runs[0];
  train.mutable_epochs(0)->set_eval_entity_f1(0.5);
  train.mutable_epochs(1)->set_eval_entity_f1(0.875);
  train.mutable_epochs(1)->set_eval_entity_precision(0.9);
  train.mutable_epochs(1)->set_eval_squad_f1(0.25);
  train.mutable_target()->set_target_f1(0.85);
  train.mutable_target()->set_epoch(1);
  train.mutable_target()->set_time_s(22);
  train.mutable_target()->set_energy_j(110.5);
  std::ostringstream out;
  export_results(runs, ExportFormat::kCsv, out);
  std::istringstream lines(out.str());
  std::string header, first, second, third;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  const std::string metrics =
      ",throughput_samples_per_s,peak_rss_bytes,eval_loss,eval_accuracy_ratio,eval_entity_precision_ratio,"
      "eval_entity_recall_ratio,eval_entity_f1_ratio,eval_exact_match_ratio,eval_squad_f1_ratio,target_f1_ratio,"
      "target_epoch,time_to_target_s,energy_to_target_j,wall_to_target_s";
  const std::string query_energy = ",energy_per_query_j,energy_per_query_sample_j";  // inference runs' (empty here)
  // The settings that are no older column follow (setting_columns_test checks them).
  const auto settings_at = header.find(metrics + query_energy + ",dataset_options,");
  ASSERT_NE(settings_at, std::string::npos) << header;
  const auto setting_columns =
      std::count(header.begin() + static_cast<std::ptrdiff_t>(settings_at), header.end(), ',') -
      std::count(metrics.begin(), metrics.end(), ',') - 2;
  auto before_settings = [&](std::string line) {  // no setting of these runs holds a comma
    for (auto n = setting_columns; n > 0; --n) line.erase(line.rfind(','));
    return line;
  };
  EXPECT_TRUE(before_settings(first).ends_with(",,,,,0.5,,,0.85,1,22,110.5,,,")) << first;  // the target on every epoch
  EXPECT_TRUE(before_settings(second).ends_with(",,,0.9,,0.875,,0.25,0.85,1,22,110.5,,,")) << second;
  EXPECT_TRUE(before_settings(third).ends_with(",,,,,,,,,,,,,,")) << third;  // the failed run: no epoch, no target

  std::ostringstream jsonl;
  export_results(runs, ExportFormat::kJsonl, jsonl);
  EXPECT_NE(jsonl.str().find("\"eval_entity_f1_ratio\":0.875"), std::string::npos);
  EXPECT_NE(jsonl.str().find("\"energy_to_target_j\":110.5"), std::string::npos);
  EXPECT_NE(jsonl.str().find("\"target_f1_ratio\":null"), std::string::npos);
}

TEST(ResultsExportTest, AnInferenceRunsLatencyAndEnergyPerQueryAreExported) {
  proto::RunResult infer;
  infer.set_sweep("s");
  infer.set_run_id("0002-r0");
  infer.set_status(proto::OK);
  auto* workload = infer.mutable_resolved()->mutable_workload();
  workload->set_model("bert-tiny-qa");
  workload->set_task(proto::INFER);
  workload->set_batch_size(8);
  auto* latency = infer.mutable_latency();
  latency->set_batches(20);
  latency->set_p99_ms(4.5);
  latency->set_energy_per_query_j(0.25);
  latency->set_energy_per_sample_j(0.03125);
  std::ostringstream out;
  export_results({infer}, ExportFormat::kJsonl, out);
  EXPECT_NE(out.str().find("\"latency_p99_ms\":4.5"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"energy_per_query_j\":0.25,\"energy_per_query_sample_j\":0.03125,"), std::string::npos)
      << out.str();
}

// A measured figure is exported with 10 significant digits, in CSV and JSON alike: a nanosecond of a
// time below 10 s stays, the noise of binary arithmetic in the last digits goes.
TEST(ResultsExportTest, MeasuredFiguresHaveTenSignificantDigits) {
  auto runs = two_runs();
  auto& train = runs[0];
  train.mutable_baseload()->set_duration_s(20);
  train.mutable_baseload()->set_power_w(8.566143999999996);
  train.mutable_epochs(0)->set_e2e_s(1.234567891);  // to the nanosecond
  train.mutable_epochs(0)->set_stall_s(0.1 + 0.2);  // 0.30000000000000004
  train.mutable_epochs(0)->set_energy_j(123456.78901234);
  runs.resize(1);
  std::ostringstream csv;
  export_results(runs, ExportFormat::kCsv, csv);
  EXPECT_NE(csv.str().find(",8.566144,"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",1.234567891,0.3,"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find(",123456.789,"), std::string::npos) << csv.str();
  std::ostringstream jsonl;
  export_results(runs, ExportFormat::kJsonl, jsonl);
  EXPECT_NE(jsonl.str().find("\"baseload_power_w\":8.566144,"), std::string::npos) << jsonl.str();
  EXPECT_NE(jsonl.str().find("\"e2e_s\":1.234567891,\"stall_s\":0.3,"), std::string::npos) << jsonl.str();
  EXPECT_NE(jsonl.str().find("\"energy_j\":123456.789,"), std::string::npos) << jsonl.str();
}

// The export is for pandas: read it with the real pandas when the machine has it.
TEST(ResultsExportTest, PandasReadsTheCsv) {
  if (std::system("/usr/bin/python3 -c 'import pandas' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-pandas not installed";
  testing::TempDir dir;
  const auto file = dir.path() / "runs.csv";
  {
    std::ofstream out(file);
    export_results(two_runs(), ExportFormat::kCsv, out);
  }
  const std::string script =
      "import pandas as p, sys; d = p.read_csv(sys.argv[1]); "
      "assert len(d) == 3, len(d); assert d['energy_j'].isna().sum() == 2; "
      "assert abs(d['e2e_s'].sum() - 22.0) < 1e-9; assert d['reason'][2].startswith('data set vanished')";
  EXPECT_EQ(std::system(("/usr/bin/python3 -c \"" + script + "\" " + file.string()).c_str()), 0);
}

}  // namespace
}  // namespace jetchar::results
