// `monitor` on a simulated board shows a CPU load (issue 47, item 8: it was `-` on every core,
// the fixture's /proc/stat never moved): a number per core, and the load the board's model has:
// beside a training run on the same board directory, the run's modelled CPU busy share (the
// record's modelled_time.cpu_busy), whatever this host runs meanwhile; once the run has ended,
// the board's own figure again (this host's measured load, which the power model takes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;
using jetchar::testing::read_text;
using nlohmann::json;

class MonitorCpuLoadTest : public ::testing::Test {
 protected:
  fs::path path(const std::string& name) const { return dir_.path() / name; }
  std::string board() const { return path("board").string(); }

  // Every core's load of every sample but the first (which has no interval yet), per cent.
  std::vector<double> monitored_loads(const std::string& name) {
    const fs::path jsonl = path(name + ".jsonl");
    const fs::path out = path(name + ".out");
    const fs::path err = path(name + ".err");
    EXPECT_EQ(testing::run_jetchar({"monitor", "--board", "sim:agx-orin-r36", "--root", board(), "--duration", "2",
                                    "--jsonl", jsonl.string()},
                                   out, err),
              kOk)
        << read_text(err);
    std::vector<double> loads;
    std::ifstream in(jsonl);
    std::size_t samples = 0;
    for (std::string line; std::getline(in, line);) {
      const auto record = json::parse(line);
      if (record.value("source", "") != "onboard") continue;
      if (samples++ == 0) continue;
      for (const auto& [field, value] : record.at("values").items()) {
        if (field.starts_with("cpu") && field.ends_with(".util_pct") && value.is_number())
          loads.push_back(value.get<double>());
      }
    }
    return loads;
  }

  testing::TempDir dir_;
};

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return values.empty() ? -1 : sum / static_cast<double>(values.size());
}

TEST_F(MonitorCpuLoadTest, TheLoadIsANumberAndFollowsTheBoardsModelBesideATrainingRun) {
  // Nothing runs on the board: a load per core, as the model has it (this host's); the line a
  // second (off a terminal, without a sample log) shows it in its CPU column, not "-".
  const fs::path lines = path("lines.out"), lines_err = path("lines.err");
  ASSERT_EQ(testing::run_jetchar({"monitor", "--board", "sim:agx-orin-r36", "--root", board(), "--duration", "2"},
                                 lines, lines_err),
            kOk)
      << read_text(lines_err);
  EXPECT_THAT(read_text(lines), ::testing::ContainsRegex("CPU \\[[0-9]+%(,[0-9]+%){11}\\]")) << read_text(lines);
  EXPECT_THAT(read_text(lines), ::testing::Not(::testing::HasSubstr("CPU [-"))) << read_text(lines);
  const auto idle = monitored_loads("idle");
  ASSERT_GE(idle.size(), 12u * 10) << "12 cores, 10 samples a second";
  for (const double load : idle) {
    EXPECT_GE(load, 0.0);
    EXPECT_LE(load, 100.0);
  }

  // A training run on the same board, paced to its time model, which pins the CPU busy share.
  const fs::path train_out = path("train.json"), train_err = path("train.err");
  const pid_t train = testing::spawn_jetchar(
      {"train", "--model", "lenet5", "--dataset", "synthetic:1x28x28?samples=256&classes=10", "--batch", "16",
       "--epochs", "10000", "--threads", "1", "--board", "sim:agx-orin-r36", "--root", board(), "--json"},
      train_out, train_err);
  // Its first epoch line on stderr (--json keeps stdout for the JSON) says the run is paced.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (read_text(train_err).find("epoch 1/10000: ") == std::string::npos &&
         read_text(train_err).find("error") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_THAT(read_text(train_err), ::testing::HasSubstr("epoch 1/10000: 16 minibatches, ")) << read_text(train_err);
  const auto training = monitored_loads("training");
  ASSERT_EQ(::kill(train, SIGINT), 0);
  EXPECT_EQ(testing::wait_exit_status(train), kInterrupted) << read_text(train_err);
  const auto record = json::parse(read_text(train_out)).at("record");
  const double cpu_busy = record.at("modelled_time").at("cpu_busy").get<double>();
  ASSERT_GT(cpu_busy, 0.0);
  // 10 ticks a core per 100 ms sample: a sample's load is a multiple of 10 %; the mean is close.
  ASSERT_GE(training.size(), 12u * 10);
  EXPECT_NEAR(mean(training), cpu_busy * 100, 8.0) << "the run's modelled CPU busy share";

  // The run is over: its pin went with it, and the board's load is its own again (a number).
  const auto after = monitored_loads("after");
  ASSERT_GE(after.size(), 12u * 10);
  const json state = json::parse(read_text(path("board") / ".jetchar-simulated-cpu.json"));
  EXPECT_FALSE(state.contains("pin")) << state.dump();
}

}  // namespace
}  // namespace jetchar::cli
