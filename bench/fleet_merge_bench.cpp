// Fleet planning and merge at scale (issue 21): B boards x R runs, each board's store generated
// synthetically (records shaped like a simulated run's: context with board identity, two epochs
// with rails). Every board stores the same R run ids, as when each board of a kind runs the same
// plan to measure variability across instances: the merge keeps them apart by the results
// store's key (sweep, run id, board), so the merged store holds B x R runs. Then
//   planning: plan_slurm_submission for B nodes and B x R runs (the sbatch scripts),
//   merge:    merge_results of the B stores into one, timed, with its peak memory measured in a
//             child process per size (getrusage ru_maxrss of that child alone),
// for B = 10, 100, 1000 (default) to show how time and memory grow. Not a test: it prints numbers.
//   fleet_merge_bench [--boards 10,100,1000] [--runs 100] [--dir /tmp]
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "results/merge.h"
#include "results/store.h"
#include "sweeps/slurm/submission.h"

namespace fs = std::filesystem;
namespace proto = jetchar::proto;
namespace results = jetchar::results;
namespace sweeps = jetchar::sweeps;
using Clock = std::chrono::steady_clock;

namespace {

proto::RunResult synthetic_run(std::size_t board, std::size_t run) {
  proto::RunResult r;
  r.set_sweep("fleet");
  r.set_run_id(fmt::format("{:04d}-r0", run));
  r.set_status(proto::OK);
  r.set_duration_s(30);
  auto* c = r.mutable_context();
  c->set_board_kind("simulated");
  c->set_board_model(board % 2 ? "NVIDIA Jetson AGX Orin Developer Kit" : "NVIDIA Orin Nano Developer Kit");
  c->set_module(board % 2 ? "p3701-0005" : "p3767-0005");
  c->set_l4t("36.4.4");
  c->set_hostname(fmt::format("b{}", board));
  c->set_node(fmt::format("b{}", board));
  c->set_serial_number(fmt::format("14210221{:05d}", board));
  c->set_device_id(fmt::format("{}/14210221{:05d}", c->module(), board));
  c->set_power_mode(fmt::format("custom: {} cores", 2 + run % 10));
  auto* w = r.mutable_requested()->mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("synthetic:1x28x28");
  w->set_batch_size(16);
  for (int e = 0; e < 2; ++e) {
    auto* epoch = r.add_epochs();
    epoch->set_epoch(e);
    epoch->set_e2e_s(10.0 + static_cast<double>(run) * 0.01 + e);
    epoch->set_stall_s(1.0);
    epoch->set_compute_s(8.0);
    epoch->set_energy_j(100.0 + static_cast<double>(run));
    for (const char* rail : {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}) {
      auto* rail_energy = epoch->add_rails();
      rail_energy->set_rail(rail);
      rail_energy->set_energy_j(30.0);
      rail_energy->set_average_power_w(3.0);
    }
  }
  return r;
}

long peak_rss_kib_of_child(const std::function<void()>& work, double* seconds) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    const auto start = Clock::now();
    work();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    [[maybe_unused]] const ssize_t n = ::write(pipe_fds[1], &s, sizeof s);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  double s = 0;
  [[maybe_unused]] const ssize_t n = ::read(pipe_fds[0], &s, sizeof s);
  ::close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  *seconds = s;
  return usage.ru_maxrss;
}

int run_bench(int argc, char** argv) {
  CLI::App app("Fleet planning and merge benchmark (synthetic stores)");
  std::string boards_text = "10,100,1000";
  std::size_t runs = 100;
  std::string dir = fs::temp_directory_path().string();
  app.add_option("--boards", boards_text, "Board counts, comma-separated")->capture_default_str();
  app.add_option("--runs", runs, "Runs per board")->capture_default_str();
  app.add_option("--dir", dir, "Where the synthetic stores go")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::vector<std::size_t> sizes;
  std::stringstream list(boards_text);
  for (std::string item; std::getline(list, item, ',');) sizes.push_back(std::stoul(item));

  const fs::path root = fs::path(dir) / fmt::format("jetchar-fleet-bench-{}", ::getpid());
  fmt::print("{:>7} {:>7} {:>9} {:>12} {:>12} {:>12} {:>14} {:>12}\n", "boards", "runs", "total", "generate s",
             "plan ms", "merge s", "merge runs/s", "merge RSS MiB");
  for (const std::size_t boards : sizes) {
    const fs::path base = root / std::to_string(boards);
    // Generate: one store per board, each in one transaction.
    const auto g0 = Clock::now();
    std::vector<fs::path> stores;
    for (std::size_t b = 0; b < boards; ++b) {
      const fs::path node = base / "nodes" / fmt::format("b{}", b);
      fs::create_directories(node);
      results::ResultsStore store(node / "results.db");
      std::vector<proto::RunResult> results;
      for (std::size_t r = 0; r < runs; ++r) results.push_back(synthetic_run(b, r));
      store.save_batch(results);
      stores.push_back(node);
    }
    const double generate_s = std::chrono::duration<double>(Clock::now() - g0).count();

    // Planning: the sbatch scripts for every board, one chunk per run.
    sweeps::SlurmSubmitOptions options;
    options.results = base;
    options.sweep_name = "fleet";
    options.jetchar = "/usr/bin/jetchar";
    for (std::size_t b = 0; b < boards; ++b) options.nodes.push_back(fmt::format("b{}", b));
    const auto p0 = Clock::now();
    const auto submission = sweeps::plan_slurm_submission(boards * runs, options);
    const double plan_ms = std::chrono::duration<double, std::milli>(Clock::now() - p0).count();
    if (submission.chunks != boards * runs) return 1;

    double merge_s = 0;
    const long rss = peak_rss_kib_of_child([&] { results::merge_results(base / "merged", stores); }, &merge_s);
    const results::ResultsStore merged(base / "merged" / "results.db", results::ResultsStore::Access::kReadOnly);
    const std::size_t held = merged.load_all().size();
    if (held != boards * runs) {
      fmt::print(stderr, "merged store holds {} runs, expected {}\n", held, boards * runs);
      return 1;
    }
    fmt::print("{:>7} {:>7} {:>9} {:>12.2f} {:>12.2f} {:>12.2f} {:>14.0f} {:>12.1f}\n", boards, runs, boards * runs,
               generate_s, plan_ms, merge_s, static_cast<double>(boards * runs) / merge_s,
               static_cast<double>(rss) / 1024.0);
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_bench(argc, argv);
  } catch (const std::exception& e) {
    // A store that cannot be written, a size that is not a number: one line, not std::terminate.
    std::fprintf(stderr, "fleet_merge_bench: %s\n", e.what());
    return 1;
  }
}
