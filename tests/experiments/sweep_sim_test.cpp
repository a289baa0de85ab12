// Sweeps on a simulated AGX Orin, in this process (the real executor, power session, results
// store) and through the jetchar binary: adaptive stopping, external meters over real pty pairs
// with GPIO phase markers, a meter that disappears mid-run, problems found before the sweep
// starts, and the export read by pandas.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "experiments/characterization_executor.h"
#include "experiments/sweep_validation.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/open_board.h"
#include "results/export.h"
#include "results/store.h"
#include "sweeps/runner.h"
#include "sweeps/spec_io.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A simulated board that lives in a temporary directory, and sweeps run on it in this process.
class SimBoardSweep {
 public:
  SimBoardSweep() : board_(jetson::open_board("sim:agx-orin-r36", dir_.path() / "board")) {}

  sweeps::SweepPlan plan(const std::string& text) const {
    return sweeps::plan_sweep(sweeps::parse_sweep_spec(text, "sweep.textproto"), "sweep.textproto");
  }
  std::vector<PlanProblem> problems(const std::string& text) const {
    return validate_plan_against_board(plan(text), board_);
  }
  /// Runs every run of `text` (sweep name "s") and returns what the store holds.
  std::vector<proto::RunResult> run(const std::string& text, std::ostream* log = nullptr) {
    const auto sweep_plan = plan(text);
    const auto found = validate_plan_against_board(sweep_plan, board_);
    for (const auto& p : found) ADD_FAILURE() << p.run_id << ": " << p.message;
    results::ResultsStore store(dir_.path() / "results.db");
    sweeps::SweepJournal journal(dir_.path() / "journal");
    const sweeps::SystemdNotifier notifier;
    CharacterizationExecutor executor(board_, log);
    sweeps::SweepRunnerOptions options;
    options.sweep_name = "s";
    options.log = log;
    sweeps::SweepRunner(store, journal, notifier).run(sweep_plan, executor, options);
    executor.restore();
    return store.load_all("s");
  }
  const fs::path& dir() const { return dir_.path(); }
  jetson::BoardHandle& board() { return board_; }

 private:
  testing::TempDir dir_;
  jetson::BoardHandle board_;
};

// Every core of the host busy (at least two spinning threads) until stop() or destruction.
class BusyHost {
 public:
  BusyHost() {
    for (unsigned i = 0; i < std::max(2u, std::thread::hardware_concurrency()); ++i) {
      spinners_.emplace_back([this] {
        volatile double x = 1;
        while (!stop_.load(std::memory_order_relaxed)) x = x * 1.0000001 + 1e-9;
      });
    }
  }
  ~BusyHost() { stop(); }
  BusyHost(const BusyHost&) = delete;
  BusyHost& operator=(const BusyHost&) = delete;
  void stop() {
    stop_ = true;
    for (auto& t : spinners_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

std::string spec_with(const std::string& workload_extra, const std::string& extra, const std::string& axes) {
  std::string text =
      "name: \"s\"\nbase {\n  workload { model: \"lenet5\" dataset: \"synthetic:1x28x28?samples=8192&classes=10\" ";
  text += "batch_size: 16 device: \"cpu\" ";
  text += workload_extra;
  text += " }\n  device { cpu_freq_mhz: 1728 dvfs: OFF }\n";
  text += extra;
  text += "\n}\n";
  text += axes;
  return text;
}

TEST(SweepSimIntegration, AdaptiveRunsStopEarlyAndRecordTheMinibatchesNeeded) {
  SimBoardSweep sim;
  // Up to 400 minibatches per run; adaptive stopping at 25 %: minibatch times on a machine
  // shared with other builds vary by tens of percent (measured: a 10 % half-width after 300
  // minibatches under a load average of 15), so a tight threshold would test the machine.
  const auto results = sim.run(spec_with("epochs: 1 max_minibatches: 400",
                                         "  measurement { sample_rate_hz: 200 }\n  adaptive { enabled: true "
                                         "warmup_minibatches: 10 relative_half_width: 0.25 min_minibatches: 30 }",
                                         "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"918\"] }\n"));
  ASSERT_EQ(results.size(), 2u);
  int stopped_early = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.status(), proto::OK) << r.run_id() << ": " << r.reason();
    ASSERT_TRUE(r.has_adaptive()) << r.run_id();
    EXPECT_EQ(r.adaptive().basis(), "time+power");
    ASSERT_EQ(r.epochs_size(), 1);
    EXPECT_EQ(r.adaptive().minibatches(), r.epochs(0).minibatches());
    if (r.adaptive().stopped_early()) {
      ++stopped_early;
      EXPECT_EQ(r.adaptive_minibatches(), r.epochs(0).minibatches());
      EXPECT_GE(r.adaptive_minibatches(), 40u);
      EXPECT_LT(r.adaptive_minibatches(), 400u);
      EXPECT_LT(r.adaptive().time_relative_half_width(), 0.25);
      EXPECT_LT(r.adaptive().power_relative_half_width(), 0.25);
      EXPECT_TRUE(r.epochs(0).has_energy_j()) << r.run_id();
    } else {
      EXPECT_EQ(r.adaptive_minibatches(), 0u);
      EXPECT_NE(r.reason().find("adaptive stopping: not settled after 400 minibatches"), std::string::npos);
    }
    std::cout << r.run_id() << ": " << r.adaptive().minibatches() << " minibatches, time +-"
              << r.adaptive().time_relative_half_width() * 100 << " %, power +-"
              << r.adaptive().power_relative_half_width() * 100 << " %, " << r.duration_s() << " s\n";
  }
  EXPECT_GE(stopped_early, 1) << "no run settled within 400 minibatches";
  // Not asked for (measurement.power_samples): no samples are stored.
  EXPECT_TRUE(results::ResultsStore(sim.dir() / "results.db").power_samples("s", results[0].run_id()).empty());

  // The store's flat column and the export carry it too.
  std::ostringstream csv;
  results::export_results(results, results::ExportFormat::kCsv, csv);
  EXPECT_NE(csv.str().find("adaptive_minibatches,adaptive_basis"), std::string::npos);
  EXPECT_NE(csv.str().find(",time+power,"), std::string::npos);
}

// measurement { power_samples minibatch_records }: the store keeps every onboard sample of the
// run (t from the run's start) and each minibatch's energy and loss; epochs say when they began.
TEST(SweepSimIntegration, PowerSamplesAndMinibatchEnergiesAreStoredWhenAsked) {
  SimBoardSweep sim;
  const auto results =
      sim.run(spec_with("epochs: 2 max_minibatches: 20",
                        "  measurement { sample_rate_hz: 200 power_samples: true minibatch_records: true }", ""));
  ASSERT_EQ(results.size(), 1u);
  const auto& r = results[0];
  ASSERT_EQ(r.status(), proto::OK) << r.reason();
  // AGX Orin's total: its module rails, not the sub-rail VDDQ_VDD2_1V8AO that VIN_SYS_5V0 feeds.
  ASSERT_EQ(r.context().energy_source(), "sum of module rails (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0)");
  const std::set<std::string> total_rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};

  results::ResultsStore store(sim.dir() / "results.db");
  std::map<double, double> total_w;  // t → the total at that sample
  std::map<std::string, std::size_t> per_rail;
  for (const auto& sample : store.power_samples("s", r.run_id())) {
    ++per_rail[sample.channel];
    if (total_rails.count(sample.channel)) total_w[sample.t_s] += sample.power_w;
  }
  EXPECT_EQ(per_rail.size(), 4u);
  for (const auto& [rail, count] : per_rail) EXPECT_EQ(count, total_w.size()) << rail;
  ASSERT_GE(total_w.size(), 20u);

  // Epochs follow each other inside the run, and the samples bracket the whole run.
  ASSERT_EQ(r.epochs_size(), 2);
  ASSERT_TRUE(r.epochs(0).has_start_s() && r.epochs(1).has_start_s());
  EXPECT_GE(r.epochs(0).start_s(), 0.0);
  EXPECT_GE(r.epochs(1).start_s(), r.epochs(0).start_s() + r.epochs(0).e2e_s() - 1e-6);
  EXPECT_LE(total_w.begin()->first, 0.0);
  EXPECT_GT(total_w.begin()->first, -0.5);
  EXPECT_GE(total_w.rbegin()->first, r.epochs(1).start_s() + r.epochs(1).e2e_s());

  // Each epoch's stored energy is the stored samples' trapezoid over it (to 1 %: the sampler's
  // edges are interpolated the same way).
  for (const auto& e : r.epochs()) {
    ASSERT_TRUE(e.has_energy_j()) << "epoch " << e.epoch();
    const double begin = e.start_s(), end = e.start_s() + e.e2e_s();
    auto power_at = [&](double t) {
      auto after = total_w.upper_bound(t);
      auto before = std::prev(after);
      if (after == total_w.end()) return before->second;
      return before->second + (after->second - before->second) * (t - before->first) / (after->first - before->first);
    };
    double joules = 0, t = begin;
    for (auto it = total_w.upper_bound(begin); it != total_w.end() && it->first < end; ++it) {
      joules += (power_at(t) + it->second) / 2 * (it->first - t);
      t = it->first;
    }
    joules += (power_at(t) + power_at(end)) / 2 * (end - t);
    EXPECT_NEAR(joules, e.energy_j(), 0.01 * e.energy_j()) << "epoch " << e.epoch();
  }

  // Every minibatch has a loss and an energy whose mean power lies within the samples' range.
  ASSERT_EQ(r.minibatches_size(), 40);
  const auto [lowest, highest] = std::minmax_element(total_w.begin(), total_w.end(),
                                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& m : r.minibatches()) {
    ASSERT_TRUE(m.has_loss() && m.has_energy_j()) << m.ShortDebugString();
    const double watts = m.energy_j() / (m.stall_s() + m.compute_s());
    EXPECT_GE(watts, lowest->second - 1e-9) << m.ShortDebugString();
    EXPECT_LE(watts, highest->second + 1e-9) << m.ShortDebugString();
  }
}

// What ran is what is recorded: a sweep over 4, 12 and 4 cores and the MODE_50W preset runs each
// in its mode (the 12-core run after a 4-core run brings cores 4-11 back), records the cores and
// clocks the board shows as the resolved mode (the preset too), and the context's online CPUs agree.
TEST(SweepSimIntegration, EveryRunRunsInItsModeAndRecordsWhatTheBoardShows) {
  SimBoardSweep sim;
  const auto results = sim.run(
      "name: \"s\"\nbase {\n  workload { model: \"lenet5\" dataset: \"synthetic:1x28x28?samples=64&classes=10\" "
      "batch_size: 16 epochs: 1 device: \"cpu\" }\n}\n"
      "runs { device { cpu_cores: 4 cpu_freq_mhz: 1728 gpu_freq_mhz: 612 dvfs: OFF } }\n"
      "runs { device { cpu_cores: 12 cpu_freq_mhz: 1728 gpu_freq_mhz: 918 dvfs: OFF } }\n"
      "runs { device { cpu_cores: 4 cpu_freq_mhz: 1728 gpu_freq_mhz: 612 dvfs: OFF } }\n"
      "runs { device { preset_mode: 3 } }\n");
  ASSERT_EQ(results.size(), 4u);
  const std::vector<unsigned> cores = {4, 12, 4};
  const std::vector<double> gpu_mhz = {612, 918, 612};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    SCOPED_TRACE(r.run_id() + " " + r.context().power_mode());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    ASSERT_TRUE(r.resolved().device().has_cpu_cores());
    EXPECT_EQ(r.resolved().device().cpu_cores(), static_cast<unsigned>(r.context().online_cpus_size()));
    EXPECT_TRUE(r.resolved().device().has_cpu_freq_mhz());
    EXPECT_TRUE(r.resolved().device().has_gpu_freq_mhz());
    EXPECT_TRUE(r.resolved().device().has_emc_freq_mhz());
    if (i < cores.size()) {
      EXPECT_EQ(r.resolved().device().cpu_cores(), cores[i]);
      EXPECT_DOUBLE_EQ(r.resolved().device().cpu_freq_mhz(), 1728);
      EXPECT_DOUBLE_EQ(r.resolved().device().gpu_freq_mhz(), gpu_mhz[i]);
    }
  }
}

// The idle baseline is the modelled board's idle, not the host's load: with every core of the host
// busy while the baseline is taken, a paced run's power (the time model's busy shares) still lies
// above it, so no epoch's incremental energy is negative.
TEST(SweepSimIntegration, ABusyHostDoesNotLiftTheBaselineAboveTheRun) {
  SimBoardSweep sim;
  BusyHost busy;
  const auto results = sim.run(spec_with("max_minibatches: 20 epochs: 2", "  measurement { baseload_s: 0.4 }",
                                         "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"1300.5\"] }"));
  busy.stop();
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.run_id());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    ASSERT_GT(r.baseload().power_w(), 0);
    for (const auto& e : r.epochs()) {
      ASSERT_TRUE(e.has_incremental_energy_j());
      EXPECT_GE(e.incremental_energy_j(), 0) << "epoch " << e.epoch() << ": run power " << e.average_power_w()
                                             << " W, baseline " << r.baseload().power_w() << " W";
    }
  }
}

// A host slower than the modelled board dilates the run's time (jetson/simulated/modelled_time_pacer.h):
// its figures are the modelled board's, so an epoch's compute is its minibatches' modelled compute
// whatever this host's speed, and it follows the GPU clock as the model does. ResNet-18 at batch 16
// is far slower here than on an AGX Orin, so every run here is dilated.
TEST(SweepSimIntegration, AHostSlowerThanTheBoardReportsTheModelledTimes) {
  SimBoardSweep sim;
  const auto results = sim.run(
      "name: \"s\"\nbase {\n  workload { model: \"resnet18-cifar\" dataset: \"synthetic:3x32x32?samples=64\" "
      "batch_size: 16 epochs: 1 device: \"cpu\" }\n  device { cpu_freq_mhz: 1728 dvfs: OFF }\n"
      "  measurement { baseload_s: 0.2 }\n}\n"
      "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"1300.5\"] }\n");
  ASSERT_EQ(results.size(), 2u);
  std::vector<double> compute_s;
  for (const auto& r : results) {
    SCOPED_TRACE(r.run_id());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    const auto& m = r.modelled_time();
    EXPECT_GT(m.dilation(), 1.0) << "ResNet-18 runs slower here than on the modelled board";
    EXPECT_NE(r.reason().find("MODELLED"), std::string::npos) << r.reason();
    ASSERT_EQ(r.epochs_size(), 1);
    const auto& e = r.epochs(0);
    const double per_minibatch = e.compute_s() / static_cast<double>(e.minibatches());
    const double overran = static_cast<double>(m.host_slower_minibatches()) / static_cast<double>(e.minibatches());
    EXPECT_GE(per_minibatch, 0.99 * m.minibatch_compute_s());
    // A minibatch that overran k x its modelled time counts its own (divided by k).
    EXPECT_LE(per_minibatch, m.minibatch_compute_s() * (1.02 + 2 * overran))
        << m.host_slower_minibatches() << " of " << e.minibatches() << " overran";
    EXPECT_LE(e.compute_s() + e.stall_s(), e.e2e_s() * 1.0001);
    ASSERT_TRUE(e.has_energy_j());
    EXPECT_NEAR(e.average_power_w(), e.energy_j() / e.e2e_s(), 0.05 * e.average_power_w())
        << "energy and time are divided alike, so the power is the modelled board's";
    compute_s.push_back(e.compute_s());
  }
  EXPECT_GT(results[0].modelled_time().minibatch_compute_s(), results[1].modelled_time().minibatch_compute_s());
  EXPECT_GT(compute_s[0], compute_s[1]) << "compute follows the GPU clock as the model does";
}

// The fetch stall is the modelled board's too: each minibatch after the run's first waits for the
// modelled stall of its fetch (the loader's work on the mode's CPU and DRAM), whatever this host's
// loader takes, so the stall follows the EMC clock as the time model does.
TEST(SweepSimIntegration, TheFetchStallIsTheModelledBoardsAndFollowsTheEmcClock) {
  SimBoardSweep sim;
  const auto results = sim.run(spec_with("epochs: 2 max_minibatches: 10", "",
                                         "axes { field: \"device.emc_freq_mhz\" values: [\"665.6\", \"3199\"] }"));
  ASSERT_EQ(results.size(), 2u);
  std::vector<double> stall_s;
  for (const auto& r : results) {
    SCOPED_TRACE(r.run_id());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    const auto& m = r.modelled_time();
    ASSERT_GT(m.minibatch_stall_s(), 0);
    ASSERT_EQ(r.epochs_size(), 2);
    // Every minibatch of the second epoch is paced (the run's first fetch came before k was known).
    const auto& e = r.epochs(1);
    ASSERT_GT(e.minibatches(), 0u);
    const double per_minibatch = e.stall_s() / static_cast<double>(e.minibatches());
    EXPECT_NEAR(per_minibatch, m.minibatch_stall_s(), 1e-6 + 1e-3 * m.minibatch_stall_s())
        << "the stall ends at the board's time, the host's delay left out";
    EXPECT_LE(e.compute_s() + e.stall_s(), e.e2e_s() * 1.0001);
    stall_s.push_back(e.stall_s());
  }
  EXPECT_GT(results[0].modelled_time().minibatch_stall_s(), results[1].modelled_time().minibatch_stall_s());
  EXPECT_GT(stall_s[0], stall_s[1]) << "the stall follows the EMC clock as the model does";
}

// A paced epoch is its minibatches' board time, stalls and computes: the host's bookkeeping
// between them, its overruns and late wake-ups are left out, so two repetitions give the same warm
// epochs with every core of the host busy.
TEST(SweepSimIntegration, APacedEpochIsItsBoardsTimeOnABusyHost) {
  SimBoardSweep sim;
  BusyHost busy;
  const auto results = sim.run(spec_with("epochs: 2 max_minibatches: 10", "  repetitions: 2", ""));
  busy.stop();
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.run_id());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    ASSERT_EQ(r.epochs_size(), 2);
    for (const auto& e : r.epochs()) EXPECT_NEAR(e.e2e_s(), e.stall_s() + e.compute_s(), 1e-6) << "epoch " << e.epoch();
  }
  const auto& warm0 = results[0].epochs(1);
  const auto& warm1 = results[1].epochs(1);
  EXPECT_NEAR(warm0.e2e_s(), warm1.e2e_s(), 1e-6)
      << "k " << results[0].modelled_time().dilation() << " and " << results[1].modelled_time().dilation();
  EXPECT_NEAR(warm0.stall_s(), warm1.stall_s(), 1e-6);
}

// Inference queries are paced too: the latency of a query is the modelled board's.
TEST(SweepSimIntegration, InferenceLatenciesAreTheModelledBoards) {
  SimBoardSweep sim;
  const auto results = sim.run(spec_with("task: INFER inference { warmup_batches: 3 min_queries: 20 }", "",
                                         "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"1300.5\"] }"));
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.run_id());
    ASSERT_EQ(r.status(), proto::OK) << r.reason();
    EXPECT_FALSE(r.context().time_model().empty());
    const auto& m = r.modelled_time();
    EXPECT_EQ(m.paced_minibatches() + m.host_slower_minibatches(), 21u)
        << "the 20 timed queries and the last warm-up query, which calibrates; the first two run unpaced";
    EXPECT_GE(r.latency().p50_ms(), 0.99e3 * m.minibatch_compute_s());
    // A query ends when the board's would: the host's late wake-up from the pacer's sleep (the
    // scheduler's latency, milliseconds beside other work) is not the board's.
    EXPECT_LE(r.latency().p50_ms(), 1.01e3 * m.minibatch_compute_s() + 0.05);
  }
  EXPECT_GE(results[0].modelled_time().minibatch_compute_s(), results[1].modelled_time().minibatch_compute_s());
}

// The sweep pings systemd's watchdog from the executor's heartbeat (throttled to once a second):
// an inference run must beat as it queries, or one longer than WatchdogSec is killed as hung.
TEST(SweepSimIntegration, InferenceRunsBeatAfterEveryQuery) {
  SimBoardSweep sim;
  const auto plan = sim.plan(spec_with("task: INFER inference { warmup_batches: 2 min_queries: 30 }", "", ""));
  ASSERT_EQ(plan.runs.size(), 1u);
  CharacterizationExecutor executor(sim.board());
  int beats = 0;
  executor.set_heartbeat([&beats] { ++beats; });
  const auto result = executor.execute(plan.runs.front());
  executor.restore();
  ASSERT_EQ(result.status(), proto::OK) << result.DebugString();
  EXPECT_EQ(result.latency().batches(), 30u);
  EXPECT_GE(beats, 2 + 30);
}

TEST(SweepSimIntegration, MetersAndGpioMarkersAreRecordedPerEpoch) {
  jetson::meters::MeterSimulatorOptions meter_options;
  meter_options.interval = 10ms;  // the ina protocol's nominal interval, which the reader expects
  jetson::meters::MeterSimulator meter("ina", jetson::meters::SyntheticPowerTrace::standard(5000), meter_options);
  meter.start();
  SimBoardSweep sim;
  const std::string device = meter.device_path();
  const auto results = sim.run(spec_with("epochs: 2 max_minibatches: 40",
                                         "  measurement { sample_rate_hz: 100 gpio_marker_line: 17 power_samples: true "
                                         "meters { protocol: \"ina\" device: \"" +
                                             device + "\" } }",
                                         "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"918\"] }\n"));
  ASSERT_EQ(results.size(), 2u);
  int epochs_with_meter_energy = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.status(), proto::OK) << r.run_id() << ": " << r.reason();
    // Marker: both edges of the run and of each epoch.
    EXPECT_EQ(r.marker().toggles(), 2u + 2u * 2u) << r.run_id();
    EXPECT_EQ(r.marker().failed(), 0u);
    EXPECT_EQ(r.context().gpio_marker(), "fake marker (records toggles only)");
    ASSERT_EQ(r.meters_size(), 1);
    EXPECT_EQ(r.meters(0).meter(), "ina:" + device);
    EXPECT_GT(r.meters(0).readings(), 10u);
    // A clock fit (with the nominal interval when a starved reader received in bursts); never a
    // correlation with the simulated board's modelled power.
    EXPECT_EQ(r.meters(0).alignment().rfind("clock fit", 0), 0u) << r.meters(0).alignment();
    EXPECT_EQ(r.meters(0).alignment().find("correlation"), std::string::npos) << r.meters(0).alignment();
    ASSERT_EQ(r.epochs_size(), 2);
    for (const auto& e : r.epochs()) {
      ASSERT_EQ(e.meters_size(), 1);
      const auto& m = e.meters(0);
      // A reader starved of CPU on a loaded machine records silences as gaps (three missed
      // intervals): such an epoch has no meter energy, and says how long the gap was.
      if (m.gap_s() > 0) {
        EXPECT_FALSE(m.has_energy_j());
        EXPECT_GT(r.meters(0).gap_count(), 0u);
        continue;
      }
      ++epochs_with_meter_energy;
      ASSERT_TRUE(m.has_energy_j()) << r.run_id() << " epoch " << e.epoch() << ": gap " << m.gap_s() << " s, "
                                    << m.readings() << " readings in " << e.e2e_s()
                                    << " s; run: " << r.meters(0).ShortDebugString();
      // The standard trace lies between 3 W and 9 W; the energy is its mean power times the epoch.
      EXPECT_GE(m.average_power_w(), 2.9);
      EXPECT_LE(m.average_power_w(), 9.1);
      EXPECT_NEAR(m.energy_j(), m.average_power_w() * e.e2e_s(), 0.05 * m.energy_j());
      EXPECT_EQ(m.gap_s(), 0.0);
      // The onboard (simulated) figure is recorded alongside, independently.
      EXPECT_TRUE(e.has_energy_j());
    }
  }
  // The reader calls 30 ms of silence a gap; under a full CI load most epochs can have one.
  EXPECT_GE(epochs_with_meter_energy, 1) << "of 4 epochs";
  // Stored with the run, one entry per epoch and meter.
  results::ResultsStore store(sim.dir() / "results.db");
  EXPECT_EQ(store.load("s", results[0].run_id())->epochs(1).meters(0).DebugString(),
            results[0].epochs(1).meters(0).DebugString());
  std::ostringstream csv;
  results::export_results(results, results::ExportFormat::kCsv, csv);
  EXPECT_NE(csv.str().find("meter,meter_energy_j,meter_avg_power_w,meter_gap_s"), std::string::npos);

  // measurement.power_samples keeps the meter's readings too, as a channel named as the meter, on
  // the run's clock: they span the run, and an epoch's meter power is a time-weighted average of the
  // readings that cover the epoch (from the last one at or before its start to the first one at or
  // after its end), so it lies between their least and greatest. A plain mean of the readings is not
  // that average: a reading delayed under load weighs more in time than in count. A minibatch the
  // host overran even at the paced time (a loaded machine) leaves its delay out of the epoch's E2E but
  // not out of its window, whose meter energy is scaled to the E2E at the window's average power: that
  // window ends at the next epoch's start (the last one's, somewhere before the run's last reading).
  for (const auto& r : results) {
    const bool host_delays = r.modelled_time().host_slower_minibatches() > 0;
    std::map<double, double> meter_w;
    std::set<std::string> onboard;
    for (const auto& sample : store.power_samples("s", r.run_id())) {
      if (sample.channel == "ina:" + device) meter_w[sample.t_s] = sample.power_w;
      else onboard.insert(sample.channel);
    }
    EXPECT_EQ(onboard.size(), 4u) << r.run_id();
    ASSERT_GT(meter_w.size(), 10u) << r.run_id();
    const auto& last = r.epochs(r.epochs_size() - 1);
    EXPECT_LE(meter_w.begin()->first, r.epochs(0).start_s()) << r.run_id();
    EXPECT_GE(meter_w.rbegin()->first, last.start_s() + last.e2e_s()) << r.run_id();
    for (int i = 0; i < r.epochs_size(); ++i) {
      const auto& e = r.epochs(i);
      if (!e.meters(0).has_average_power_w()) continue;
      auto first = meter_w.upper_bound(e.start_s());
      if (first != meter_w.begin()) --first;
      auto end = meter_w.end();
      if (!host_delays || i + 1 < r.epochs_size()) {
        end = meter_w.lower_bound(host_delays ? r.epochs(i + 1).start_s() : e.start_s() + e.e2e_s());
        if (end != meter_w.end()) ++end;
      }
      ASSERT_NE(first, end) << r.run_id() << " epoch " << e.epoch();
      double least = first->second;
      double greatest = first->second;
      int count = 0;
      for (auto it = first; it != end; ++it, ++count) {
        least = std::min(least, it->second);
        greatest = std::max(greatest, it->second);
      }
      EXPECT_GE(count, 2) << r.run_id() << " epoch " << e.epoch();
      EXPECT_GE(e.meters(0).average_power_w(), least - 1e-9) << r.run_id() << " epoch " << e.epoch();
      EXPECT_LE(e.meters(0).average_power_w(), greatest + 1e-9)
          << r.run_id() << " epoch " << e.epoch() << ", " << count << " readings";
    }
  }
}

TEST(SweepSimIntegration, AMeterThatDisappearsMidRunIsRecordedAndTheSweepGoesOn) {
  jetson::meters::MeterSimulatorOptions meter_options;
  meter_options.interval = 20ms;
  testing::TempDir links;
  meter_options.link_path = links.path() / "meter";  // as /dev/serial/by-id: gone while unplugged
  jetson::meters::MeterSimulator meter("ina", jetson::meters::SyntheticPowerTrace::standard(5000), meter_options);
  meter.start();
  SimBoardSweep sim;
  const std::string spec = spec_with(
      "epochs: 2 max_minibatches: 60",
      "  measurement { sample_rate_hz: 100 meters { protocol: \"ina\" device: \"" + meter.device_path() + "\" } }",
      "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"612\", \"918\"] }\n");
  ASSERT_TRUE(sim.problems(spec).empty());

  // Unplug the meter (close the pty master) for good halfway through the first run's first
  // epoch: the executor beats once per training minibatch (a timer raced the runs: on an idle
  // machine all three were done before it fired). The runs go one after another, as in a sweep.
  CharacterizationExecutor executor(sim.board());
  int beats = 0;
  executor.set_heartbeat([&] {
    if (++beats == 30) meter.disconnect();
  });
  std::vector<proto::RunResult> results;
  for (const auto& run : sim.plan(spec).runs) results.push_back(executor.execute(run));
  executor.restore();

  ASSERT_EQ(results.size(), 3u);
  // The first run read the meter until it went.
  EXPECT_GT(results[0].meters(0).readings(), 0u) << results[0].reason();
  EXPECT_GT(results[0].meters(0).gap_count(), 0u) << results[0].reason();
  bool saw_gap = false;
  for (const auto& r : results) {
    // The run is OK (the onboard figures are complete); the meter's loss is recorded with it.
    EXPECT_EQ(r.status(), proto::OK) << r.run_id() << ": " << r.reason();
    ASSERT_EQ(r.meters_size(), 1);
    for (const auto& e : r.epochs()) EXPECT_TRUE(e.has_energy_j()) << r.run_id();
    const auto& m = r.meters(0);
    if (m.gap_count() > 0 || m.readings() == 0) {
      saw_gap = true;
      EXPECT_NE(r.reason().find("meter ina:"), std::string::npos) << r.reason();
      // Epochs touched by the gap have no meter energy, but say how long the meter was missing.
      bool epoch_gap = false;
      for (const auto& e : r.epochs()) {
        if (e.meters(0).gap_s() > 0 || e.meters(0).readings() == 0) {
          epoch_gap = true;
          EXPECT_FALSE(e.meters(0).has_energy_j());
        }
      }
      EXPECT_TRUE(epoch_gap) << r.run_id();
    }
  }
  EXPECT_TRUE(saw_gap);
  // The later runs never saw the meter again.
  EXPECT_EQ(results[1].meters(0).readings(), 0u) << results[1].reason();
  EXPECT_EQ(results[2].meters(0).readings(), 0u) << results[2].reason();
}

TEST(SweepSimIntegration, ProblemsAreFoundBeforeTheSweepStartsAndNameTheField) {
  SimBoardSweep sim;
  auto problem_text = [&](const std::string& spec) {
    std::string all;
    for (const auto& p : sim.problems(spec)) all += p.message + "\n";
    return all;
  };
  const auto unknown_model =
      problem_text(R"(name: "s" base { workload { model: "lenet6" dataset: "synthetic:1x28x28" batch_size: 4 } })");
  EXPECT_NE(unknown_model.find("workload.model: unknown model 'lenet6'; valid: "), std::string::npos) << unknown_model;

  const auto missing_data = problem_text(
      R"(name: "s" base { workload { model: "lenet5" dataset: "fashion-mnist:/nonexistent/fashion" batch_size: 4 } })");
  EXPECT_NE(missing_data.find("workload.dataset 'fashion-mnist:/nonexistent/fashion': "), std::string::npos)
      << missing_data;
  EXPECT_NE(missing_data.find("/nonexistent/fashion"), std::string::npos) << missing_data;

  // Samples that cannot feed the model: found before the run, not as a shape error inside LibTorch.
  const auto misfit =
      problem_text(R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:3x32x32" batch_size: 4 } })");
  EXPECT_NE(misfit.find("workload.dataset 'synthetic:3x32x32': model lenet5 ("), std::string::npos) << misfit;
  EXPECT_NE(misfit.find("does not fit data set"), std::string::npos) << misfit;

  const auto bad_frequency = problem_text(
      R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 } device { gpu_freq_mhz: 777 } })");
  EXPECT_NE(bad_frequency.find("device (power mode"), std::string::npos) << bad_frequency;
  EXPECT_NE(bad_frequency.find("777"), std::string::npos) << bad_frequency;

  const auto bad_meter = problem_text(
      R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 }
         measurement { meters { protocol: "fluke" device: "/nonexistent/ttyUSB9" } } })");
  EXPECT_NE(bad_meter.find("measurement.meters[0].protocol: "), std::string::npos) << bad_meter;
  EXPECT_NE(bad_meter.find("measurement.meters[0].device '/nonexistent/ttyUSB9': no such serial device"),
            std::string::npos)
      << bad_meter;

  // Out of range for the spec (file, line, column, field) ...
  try {
    (void)sim.plan(R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 }
                      adaptive { enabled: true relative_half_width: 2 } })");
    ADD_FAILURE() << "a relative half-width of 2 was accepted";
  } catch (const sweeps::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("adaptive.relative_half_width"), std::string::npos) << e.what();
  }
  // ... and a half-width of the whole mean is no threshold either.
  const auto whole_mean = problem_text(
      R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 }
         adaptive { enabled: true relative_half_width: 1 } })");
  EXPECT_NE(whole_mean.find("adaptive.relative_half_width 1 is out of range"), std::string::npos) << whole_mean;

  // A good spec has none.
  EXPECT_EQ(
      problem_text(R"(name: "s" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 } })"),
      "");
}

using testing::run_jetchar;

TEST(SweepSimIntegration, ExportOfARealSweepIsReadByPandas) {
  ASSERT_TRUE(fs::exists(testing::jetchar_executable())) << testing::jetchar_executable();
  if (std::system("/usr/bin/python3 -c 'import pandas' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no pandas for /usr/bin/python3";
  testing::TempDir dir;
  const fs::path spec =
      dir.write("sweep.textproto", spec_with("epochs: 2 max_minibatches: 10", "  measurement { sample_rate_hz: 100 }",
                                             "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"918\"] }\naxes "
                                             "{ field: \"workload.batch_size\" values: [\"8\", \"16\"] }\n"));
  const fs::path results = dir.path() / "results";
  ASSERT_EQ(run_jetchar({"sweep", "run", spec.string(), "--results", results.string(), "--board", "sim:agx-orin-r36",
                         "--root", (dir.path() / "board").string()}),
            0);
  const fs::path csv = dir.path() / "runs.csv";
  const fs::path jsonl = dir.path() / "runs.jsonl";
  ASSERT_EQ(run_jetchar({"results", "export", results.string(), "--csv", "-o", csv.string()}), 0);
  ASSERT_EQ(run_jetchar({"results", "export", results.string(), "--jsonl", "-o", jsonl.string()}), 0);

  // 4 runs x 2 epochs; the columns analysis and people rely on, with numbers where measured.
  const fs::path check = dir.write("check.py", R"(
import sys, pandas
csv = pandas.read_csv(sys.argv[1])
jsonl = pandas.read_json(sys.argv[2], lines=True)
for name, frame in (("csv", csv), ("jsonl", jsonl)):
    assert len(frame) == 8, (name, len(frame))
    for column in ("run_id", "status", "mode", "gpu_freq_mhz", "batch", "epoch", "e2e_s", "stall_s", "energy_j",
                   "adaptive_minibatches", "meter_energy_j"):
        assert column in frame.columns, (name, column, list(frame.columns))
    assert set(frame["status"]) == {"OK"}, (name, set(frame["status"]))
    assert sorted(set(frame["batch"])) == [8, 16], name
    assert frame["e2e_s"].dtype.kind == "f" and (frame["e2e_s"] > 0).all(), name
    assert frame["energy_j"].dtype.kind == "f" and (frame["energy_j"].dropna() > 0).all(), name
    assert frame["meter_energy_j"].isna().all(), name
assert list(csv.columns) == list(jsonl.columns)
print("pandas ok", len(csv), len(csv.columns))
)");
  const std::string command = "/usr/bin/python3 " + check.string() + " " + csv.string() + " " + jsonl.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace jetchar::experiments
