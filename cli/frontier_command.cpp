// `jetchar frontier --model M --seq L --budget SIZE`: the memory frontier. Bisects for the largest
// batch that trains without running out of memory, each probe a short training run in a child
// process (`jetchar frontier-probe`, hidden) under the budget, then times every micro-batch ×
// accumulation split of that batch, with energy per step where the board measures power.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "experiments/frontier/batch_frontier.h"
#include "experiments/frontier/probe_child.h"
#include "experiments/frontier/split_energy.h"
#include "experiments/frontier/training_probe.h"
#include "experiments/models/registry.h"
#include "jetson/measurement/measurement_session.h"
#include "jetson/open_board.h"
#include "sysfs/root.h"

namespace {

using namespace jetchar;

struct FrontierOptions {
  std::string model;
  std::int64_t seq_len = 128;
  std::string precision = "fp32";
  std::string device = "cpu";
  std::optional<std::uint64_t> budget_bytes;
  std::int64_t start_batch = 1;
  std::int64_t max_batch = 4096;
  std::int64_t steps = 2;
  std::int64_t split_steps = 3;
  bool no_splits = false;
  std::optional<int> threads;
  std::uint64_t seed = 0;
  std::optional<double> timeout_s;
  std::string board = "auto";
  bool json = false;
};

std::string mib(const std::optional<std::uint64_t>& bytes) {
  return bytes ? fmt::format("{:.1f}", static_cast<double>(*bytes) / 1048576.0) : std::string("-");
}

std::string probe_line(const experiments::ProbeOutcome& outcome) {
  using experiments::ProbeStatus;
  if (outcome.status == ProbeStatus::kFits) {
    return fmt::format("fits        peak RSS {:>8} MiB{}  ({:.1f} s)", mib(outcome.peak_rss_bytes),
                       outcome.step_ns ? fmt::format(", step {:.3f} s", *outcome.step_ns / 1e9) : "", outcome.wall_s);
  }
  return fmt::format("{}  ({:.1f} s): {}", outcome.status == ProbeStatus::kOutOfMemory ? "out of memory" : "failed",
                     outcome.wall_s, outcome.error.substr(0, 160));
}

// The options that contradict each other or the device, before anything runs.
void check_frontier_options(const FrontierOptions& options) {
  const bool cuda = options.device.rfind("cuda", 0) == 0;
  if (!cuda && !options.budget_bytes) {
    throw cli::UsageError("--budget is required on the CPU (e.g. --budget 4GiB): each probe runs under it");
  }
  if (cuda && options.budget_bytes) {
    throw cli::UsageError("--budget bounds CPU runs; on a CUDA device the device's memory bounds the probes");
  }
  if (!options.no_splits && options.split_steps < 2) {
    throw std::invalid_argument(
        fmt::format("--split-steps {} must be at least 2 (the first step is not timed)", options.split_steps));
  }
}

nlohmann::json frontier_json(const FrontierOptions& options, const experiments::ModelSpec& spec,
                             const jetson::BoardHandle& board, const experiments::BatchFrontier& frontier,
                             const std::vector<experiments::SplitMeasurement>& splits) {
  nlohmann::json json{
      {"model", spec.name},
      {"sequence_length", options.seq_len},
      {"precision", options.precision},
      {"device", options.device},
      {"budget_bytes", options.budget_bytes ? nlohmann::json(*options.budget_bytes) : nlohmann::json()},
      {"budget_enforcement", options.budget_bytes ? "RLIMIT_AS above the warmed-up VmSize" : "device memory"},
      {"board", board.label}};
  json.update(to_json(frontier));
  json["splits"] = nlohmann::json::array();
  for (const auto& split : splits) json["splits"].push_back(to_json(split));
  return json;
}

// The splits' table (time, throughput, energy, peak RSS per micro-batch x accumulation) and
// where their energy comes from.
void print_splits(const jetson::BoardHandle& board, std::int64_t batch,
                  const std::vector<experiments::SplitMeasurement>& splits) {
  using experiments::ProbeStatus;
  fmt::print("{:>11} {:>10} {:>10} {:>12} {:>14} {:>12}  {}\n", "micro-batch", "accumulate", "status", "step s",
             "samples/s", "J/step", "peak RSS MiB");
  for (const auto& split : splits) {
    const auto& o = split.outcome;
    const bool timed = o.status == ProbeStatus::kFits && o.step_ns;
    fmt::print("{:>11} {:>10} {:>10} {:>12} {:>14} {:>12}  {}\n", split.micro_batch, split.accumulate,
               probe_status_name(o.status), timed ? fmt::format("{:.3f}", *o.step_ns / 1e9) : "-",
               timed ? fmt::format("{:.1f}", static_cast<double>(batch) * 1e9 / *o.step_ns) : "-",
               split.step_energy_j ? fmt::format("{:.2f}", *split.step_energy_j) : "-", mib(o.peak_rss_bytes));
  }
  if (!splits.empty() && !splits.front().energy_source) {
    fmt::print("energy: {} measures no power, so J/step is absent\n", board.label);
  } else if (!splits.empty()) {
    fmt::print("energy: {}\n", *splits.front().energy_source);
  }
}

void run_frontier(const FrontierOptions& options) {
  using namespace jetchar::experiments;
  const auto& spec = find_model(options.model);  // throws naming the valid models
  if (!spec.token_input()) {
    throw std::invalid_argument(
        fmt::format("--model {}: the memory frontier probes token models (bert-*, distilbert*); {} takes images",
                    spec.name, spec.name));
  }
  check_frontier_options(options);
  // Modelled power is a model of the board's clocks, not of these probes: only real rails count.
  jetson::BoardHandle board = jetson::open_board(options.board);
  if (board.hooks->power_modelled()) {
    throw cli::UsageError(
        fmt::format("--board {}: the frontier runs real training; give jetson, host or auto", options.board));
  }

  ProbeRequest base;
  base.model = spec.name;
  base.precision = options.precision;
  base.device = options.device;
  base.sequence_length = options.seq_len;
  base.steps = options.steps;
  base.budget_bytes = options.budget_bytes;
  base.threads = options.threads;
  base.seed = options.seed;
  ProbeCommand command{own_executable(), {"frontier-probe"}, std::nullopt};
  if (options.timeout_s) command.timeout = std::chrono::seconds(static_cast<std::int64_t>(*options.timeout_s));
  const Prober probe = [&](const ProbeRequest& request) { return run_probe_child(command, request); };

  if (!options.json) {
    fmt::print("memory frontier of {} at seq {}, {} on {}, {}\n", spec.name, options.seq_len, options.precision,
               options.device,
               options.budget_bytes
                   ? fmt::format("budget {} MiB above each probe's warmed-up address space (RLIMIT_AS)",
                                 mib(options.budget_bytes))
                   : std::string("bounded by the device's memory"));
    std::fflush(stdout);
  }
  FrontierSearchOptions search;
  search.start_batch = options.start_batch;
  search.max_batch = options.max_batch;
  if (!options.json) {
    search.on_probe = [](const ProbeRequest& request, const ProbeOutcome& outcome) {
      fmt::print("  batch {:>5}  {}\n", request.micro_batch, probe_line(outcome));
      std::fflush(stdout);
    };
  }
  const auto frontier = search_batch_frontier(base, probe, search);

  std::vector<SplitMeasurement> splits;
  if (frontier.largest_batch && !options.no_splits) {
    if (!options.json) {
      fmt::print("splits of batch {} (micro-batch x accumulation), {} optimizer steps each, the first untimed:\n",
                 *frontier.largest_batch, options.split_steps);
      std::fflush(stdout);
    }
    jetson::measurement::MeasurementSession session(*board.root, {});
    session.start();
    splits =
        measure_splits(base, *frontier.largest_batch, options.split_steps, probe, [&](const SplitMeasurement& split) {
          if (options.json) return;
          fmt::print("  {:>5} x {:<5} {}\n", split.micro_batch, split.accumulate, probe_line(split.outcome));
          std::fflush(stdout);
        });
    session.stop();
    attach_step_energy(splits, session);
  }

  if (options.json) {
    fmt::print("{}\n", frontier_json(options, spec, board, frontier, splits).dump(2));
    return;
  }
  if (!frontier.largest_batch) {
    fmt::print("largest batch: none (batch {} runs out of memory)\n", *frontier.smallest_failing_batch);
    return;
  }
  fmt::print("largest batch: {}{}\n", *frontier.largest_batch,
             frontier.smallest_failing_batch
                 ? fmt::format(" (batch {} runs out of memory)", *frontier.smallest_failing_batch)
                 : fmt::format(" (the --max-batch; larger batches were not tried)"));
  if (splits.empty()) return;
  print_splits(board, *frontier.largest_batch, splits);
}

// The child side of the probe protocol: one JSON request in, one JSON verdict line out.
void run_frontier_probe(const std::string& request_text) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(request_text);
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(fmt::format("frontier-probe request is not JSON ({}): {}", error.what(), request_text));
  }
  const auto request = experiments::probe_request_from_json(json);
  const sysfs::Root root;
  const auto outcome = experiments::run_training_probe(request, root);
  fmt::print("{}\n", to_json(outcome).dump());
  std::fflush(stdout);
}

void add_frontier_command(CLI::App& app) {
  auto options = std::make_shared<FrontierOptions>();
  CLI::App* command = app.add_subcommand(
      "frontier",
      "Find the largest batch that trains without running out of memory (each probe a short training run in a child "
      "process under --budget), and time its micro-batch x accumulation splits");
  command->add_option("--model", options->model, "Token model (bert-*, distilbert*; see `jetchar models`)")->required();
  command->add_option("--seq-len", options->seq_len, "Sequence length")
      ->capture_default_str()
      ->check(cli::between(2, 512, "tokens (BERT's position table)"));
  command
      ->add_option("--budget", options->budget_bytes,
                   "Memory each probe may use above its warmed-up LibTorch baseline, e.g. 4GiB, 512MiB (required "
                   "on the CPU; enforced with RLIMIT_AS)")
      ->transform(CLI::AsSizeValue(false));
  command->add_option("--precision", options->precision, "fp32, tf32, amp-fp16 (CUDA), bf16")->capture_default_str();
  command->add_option("--device", options->device, "cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--start-batch", options->start_batch, "First batch tried; it doubles from there")
      ->capture_default_str()
      ->check(cli::between(1, 1 << 20, "samples"));
  command->add_option("--max-batch", options->max_batch, "Largest batch tried")
      ->capture_default_str()
      ->check(cli::between(1, 1 << 20, "samples"));
  command->add_option("--steps", options->steps, "Optimizer steps per search probe (two reach AdamW's steady peak)")
      ->capture_default_str()
      ->check(cli::between(1, 1000, "steps"));
  command->add_option("--split-steps", options->split_steps, "Optimizer steps per split run, the first untimed")
      ->capture_default_str()
      ->check(cli::between(2, 1000, "steps"));
  command->add_flag("--no-splits", options->no_splits, "Only search; do not time the splits of the largest batch");
  command
      ->add_option("--threads", options->threads,
                   "LibTorch intra-op threads of each probe (and OpenBLAS's, where LibTorch multiplies in it)")
      ->check(cli::between(1, 1024, "threads"));
  command->add_option("--seed", options->seed, "Seed of the weights and the synthetic inputs")
      ->check(jetchar::cli::unsigned_integer("a seed"))
      ->capture_default_str();
  command->add_option("--probe-timeout", options->timeout_s, "Seconds after which a probe is killed and fails")
      ->check(cli::above(0, "seconds"));
  command->add_option("--board", options->board, "auto (default), jetson or host: whose rails give J/step");
  command->add_flag("--json", options->json, "Print JSON (every probe and split) instead of the table");
  cli::add_examples(*command,
                    "Examples:\n"
                    "  jetchar frontier --model bert-tiny --seq-len 64 --budget 256MiB --max-batch 64 --split-steps 2");
  command->callback([options] { run_frontier(*options); });

  auto request = std::make_shared<std::string>();
  CLI::App* probe = app.add_subcommand("frontier-probe", "One probe of `jetchar frontier` (its child process)");
  probe->group("");  // hidden: started by `jetchar frontier` only
  probe->add_option("request", *request, "The probe request as JSON")->required();
  probe->callback([request] { run_frontier_probe(*request); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(43, add_frontier_command);
