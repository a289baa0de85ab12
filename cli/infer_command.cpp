// `jetchar infer --model M --batch B[,B...] ...`: timed inference on synthetic inputs of the
// model's format or on a data set's samples (--dataset: SQuAD's dev windows for the bert-*-qa
// models), one run per batch size on the route a sweep's runs take (experiments/direct_run.h);
// prints the latency table (avg, p50, p90, p95, p99, max by
// nearest rank), throughput and, where the board measures power, J/query (query_energy.h).
// --scenario names one of MLPerf LoadGen's scenarios (experiments/inference/inference_runner.h)
// and prints its figure: single-stream's p90, offline's samples/s, or the server's trials and the
// highest rate whose p99 is within --latency-bound (experiments/inference/server_scenario.h).
// While it runs, a line on stderr as each batch size's run ends, or each server trial.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/analyze_options.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "cli/run_report.h"
#include "experiments/direct_run.h"
#include "experiments/run_settings.h"
#include "jetson/open_board.h"

namespace {

using namespace jetchar;

struct InferOptions {
  std::string model;
  std::vector<std::int64_t> batches{1};
  std::optional<std::int64_t> seq_len;
  std::optional<std::string> dataset;
  std::int64_t warmup = 10;
  std::optional<std::int64_t> queries;
  std::optional<double> duration_s;
  std::string precision = "fp32";
  std::string device = "cpu";
  std::optional<int> threads;
  std::optional<std::int64_t> classes;
  std::uint64_t seed = 0;
  std::optional<std::string> pretrained;
  std::string board = "auto";
  std::optional<std::string> root;
  bool json = false;
  std::optional<std::string> scenario;       // single-stream, offline, server
  std::optional<std::string> latency_bound;  // server: "50ms", "0.05s", ...
};

proto::InferenceScenario proto_scenario(const std::optional<std::string>& name) {
  if (!name) return proto::INFERENCE_SCENARIO_UNSPECIFIED;
  if (*name == "single-stream") return proto::SINGLE_STREAM;
  if (*name == "offline") return proto::OFFLINE;
  return proto::SERVER;  // CLI11 lets only these through
}

// One batch size's run: the runner's result, its energy per query (nullopt where the board
// measures no power) and the record a sweep would store.
struct BatchRun {
  experiments::InferenceResult result;
  std::optional<experiments::QueryEnergy> energy;
  proto::RunResult record;
};

std::string ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

// Progress on stderr, on a terminal or not (infer draws no bar), with --json too: the JSON goes
// to stdout alone, and a long run's log must show it advancing. Short, stable words: a log is
// grepped. Flushed at once.
void progress_line(const std::string& text) {
  std::fputs((text + "\n").c_str(), stderr);
  std::fflush(stderr);
}

// As a batch size's run ends: "batch B (I/N): Q queries, S s, p99 L ms" (the timed queries and
// their span: the board's, a simulated board's modelled, as the table shows them).
void batch_line(const experiments::InferenceResult& result, std::size_t index, std::size_t count) {
  const std::string head = fmt::format("batch {} ({}/{})", result.batch_size, index, count);
  if (result.server) {
    const auto best = result.server->max_qps();
    progress_line(fmt::format("{}: {} trials, {}", head, result.server->trials.size(),
                              best ? fmt::format("{:.1f} QPS within the bound", *best) : "no rate within the bound"));
  } else if (!result.latency) {
    progress_line(fmt::format("{}: {}", head, experiments::run_status_name(result.status)));
  } else {
    progress_line(fmt::format("{}: {} queries, {} s, p99 {} ms", head, result.latency->count,
                              fmt::format("{:.3f}", static_cast<double>(result.timed_ns) / 1e9),
                              ms(static_cast<double>(result.latency->p99_ns))));
  }
}

void print_table(const std::vector<BatchRun>& runs, const InferOptions& options, const std::string& board_label) {
  const auto& first = runs.front().result;
  fmt::print("model {}{}  batch {}{}  inputs {}  device {}  precision {}  threads {}  warm-up {}\n", first.model,
             options.scenario ? "  scenario " + *options.scenario : "", fmt::join(options.batches, ","),
             first.sequence_length ? fmt::format("  seq {}", *first.sequence_length) : "",
             first.input_samples ? fmt::format("{} ({} samples)", first.inputs, *first.input_samples) : first.inputs,
             first.device, first.precision, first.threads, first.warmup);
  fmt::print("{:>6} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}\n", "batch", "queries", "avg ms",
             "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms", "samples/s", "J/query");
  for (const auto& [result, energy, record] : runs) {
    if (!result.latency) {
      fmt::print("{:>6} {}: {}\n", result.batch_size, experiments::run_status_name(result.status), result.error);
      continue;
    }
    const auto& l = *result.latency;
    fmt::print("{:>6} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12.1f} {:>10}\n", result.batch_size, l.count,
               ms(l.avg_ns), ms(static_cast<double>(l.p50_ns)), ms(static_cast<double>(l.p90_ns)),
               ms(static_cast<double>(l.p95_ns)), ms(static_cast<double>(l.p99_ns)), ms(static_cast<double>(l.max_ns)),
               result.samples_per_s, energy ? fmt::format("{:.4f}", energy->per_query_j) : "-");
  }
  for (const auto& run : runs) {
    const auto& result = run.result;
    if (result.scenario == experiments::InferenceScenario::kSingleStream && result.latency) {
      fmt::print("single-stream: p90 latency {} ms over {} back-to-back queries of one sample\n",
                 ms(static_cast<double>(result.latency->p90_ns)), result.latency->count);
    } else if (result.scenario == experiments::InferenceScenario::kOffline && result.latency) {
      fmt::print("offline: {:.1f} samples/s over {} samples in batches of {}\n", result.samples_per_s,
                 result.latency->count * result.batch_size, result.batch_size);
    }
  }
  const auto measured = std::find_if(runs.begin(), runs.end(), [](const BatchRun& run) { return run.energy; });
  fmt::print("{}\n", cli::energy_line(measured == runs.end() ? std::string() : measured->energy->source, board_label,
                                      "a query is one batch, J over the timed queries (warm-up excluded)",
                                      "so J/query is absent"));
}

// The server scenario: each batch size's trials, and the highest rate whose p99 met the bound.
void print_server(const std::vector<BatchRun>& runs, const InferOptions& options, const std::string& board_label) {
  const auto& first = runs.front().result;
  fmt::print("model {}  scenario server  max batch {}{}  inputs {}  device {}  precision {}  threads {}  warm-up {}\n",
             first.model, fmt::join(options.batches, ","),
             first.sequence_length ? fmt::format("  seq {}", *first.sequence_length) : "",
             first.input_samples ? fmt::format("{} ({} samples)", first.inputs, *first.input_samples) : first.inputs,
             first.device, first.precision, first.threads, first.warmup);
  for (const auto& [result, energy, record] : runs) {
    if (!result.server) {
      fmt::print("max batch {}: {}: {}\n", result.batch_size, experiments::run_status_name(result.status),
                 result.error);
      continue;
    }
    const auto& search = *result.server;
    const double bound_ms = static_cast<double>(search.settings.latency_bound_ns) / 1e6;
    fmt::print("{:>9} {:>6} {:>12} {:>8} {:>10} {:>10} {:>8}\n", "max batch", "trial", "rate QPS", "queries", "p99 ms",
               "mean batch", "p99 ok");
    for (std::size_t i = 0; i < search.trials.size(); ++i) {
      const auto& t = search.trials[i];
      const bool last_stopped = search.stopped && i + 1 == search.trials.size();
      fmt::print("{:>9} {:>6} {:>12.1f} {:>8} {:>10} {:>10.2f} {:>8}\n", result.batch_size, i + 1, t.rate_qps,
                 t.queries < t.planned ? fmt::format("{}/{}", t.queries, t.planned) : fmt::format("{}", t.queries),
                 ms(static_cast<double>(t.p99_ns)),
                 t.batches > 0 ? static_cast<double>(t.queries) / static_cast<double>(t.batches) : 0.0,
                 last_stopped ? "stopped"
                 : t.passed   ? "yes"
                              : "no");
    }
    if (const auto max_qps = search.max_qps()) {
      fmt::print(
          "server: {:.1f} QPS with p99 {} ms within {:g} ms (max batch {}; the highest passing rate of {} "
          "trials, to within {:g} %; capacity {:.1f} QPS){}\n",
          *max_qps, ms(static_cast<double>(*search.max_qps_p99_ns())), bound_ms, result.batch_size,
          search.trials.size(), experiments::kServerRelativePrecision * 100, search.capacity_qps,
          energy ? fmt::format("  {:.4f} J/query", energy->per_query_j) : "");
    } else {
      fmt::print("server: no rate tried kept p99 within {:g} ms (max batch {}; {} trials{})\n", bound_ms,
                 result.batch_size, search.trials.size(), search.stopped ? ", stopped by a signal" : "");
    }
  }
  // The record names the board's total even when no trial passed (and so none has J/query).
  const std::string& source = runs.front().record.context().energy_source();
  fmt::print("{}\n",
             cli::energy_line(source, board_label, "a query is one sample, J over the highest passing trial's queries",
                              "so J/query is absent"));
}

nlohmann::json run_json(const BatchRun& run, const std::optional<experiments::PretrainedLoad>& pretrained,
                        const std::string& board_label) {
  auto json = experiments::to_json(run.result);
  json["energy"] = run.energy ? experiments::to_json(*run.energy) : nlohmann::json(nullptr);
  json["board"] = board_label;
  if (pretrained) json["pretrained"] = experiments::to_json(*pretrained);
  json["record"] = cli::record_json(run.record);
  return json;
}

// The one-run experiment of one batch size, as a sweep's spec would write it.
proto::ExperimentSpec experiment_of(const InferOptions& options, std::int64_t batch) {
  proto::ExperimentSpec spec;
  spec.set_name("infer");
  auto* w = spec.mutable_workload();
  w->set_task(proto::INFER);
  w->set_model(options.model);
  if (options.dataset) w->set_dataset(*options.dataset);
  w->set_batch_size(static_cast<std::uint32_t>(batch));
  if (options.seq_len) w->set_sequence_length(static_cast<std::uint32_t>(*options.seq_len));
  w->set_precision(experiments::proto_precision(experiments::parse_precision(options.precision)));
  w->set_device(options.device);
  if (options.threads) w->set_threads(static_cast<std::uint32_t>(*options.threads));
  w->set_seed(options.seed);
  if (options.pretrained) w->set_pretrained(*options.pretrained);
  auto* inference = w->mutable_inference();
  inference->set_warmup_batches(static_cast<std::uint32_t>(options.warmup));
  if (options.queries) inference->set_min_queries(static_cast<std::uint32_t>(*options.queries));
  if (options.duration_s) inference->set_min_duration_s(*options.duration_s);
  if (options.classes) inference->set_classes(static_cast<std::uint32_t>(*options.classes));
  inference->set_scenario(proto_scenario(options.scenario));
  if (options.latency_bound)
    inference->set_latency_bound_ms(cli::latency_seconds(*options.latency_bound, "--latency-bound") * 1e3);
  return spec;
}

// The runner's result of each run, its energy and the checkpoint's load; a progress line per
// server trial, with the batch size it serves.
class InferenceWatch : public experiments::WorkloadObserver {
 public:
  void inferred(const experiments::InferenceResult& result, const std::optional<experiments::QueryEnergy>& energy,
                const experiments::RunInputs& inputs) override {
    last = BatchRun{result, energy, {}};
    pretrained = inputs.pretrained;
  }
  void server_trial(const experiments::ServerTrial& trial) override {
    ++trials;
    progress_line(fmt::format("max batch {} trial {}: {:.1f} QPS, {} queries, p99 {} ms, {}", max_batch, trials,
                              trial.rate_qps, trial.queries, ms(static_cast<double>(trial.p99_ns)),
                              trial.passed ? "passed" : "failed"));
  }

  std::int64_t max_batch = 0;  ///< of the run under way
  int trials = 0;              ///< of the run under way

  std::optional<BatchRun> last;
  std::optional<experiments::PretrainedLoad> pretrained;
};

void run_infer(const InferOptions& options) {
  if (options.latency_bound && proto_scenario(options.scenario) != proto::SERVER)
    throw cli::UsageError("--latency-bound goes with --scenario server (a bound on its p99 latency)");
  if (options.latency_bound && !(cli::latency_seconds(*options.latency_bound, "--latency-bound") > 0))
    throw cli::UsageError(fmt::format("--latency-bound {} must be more than 0", *options.latency_bound));
  if (proto_scenario(options.scenario) == proto::SINGLE_STREAM) {
    for (const std::int64_t batch : options.batches) {
      if (batch != 1) {
        throw cli::UsageError(fmt::format(
            "--batch {} is not valid with --scenario single-stream (queries of one sample); valid: 1", batch));
      }
    }
  }
  // The board whose rails give J/query; modelled rails follow the set clocks and this host's
  // measured utilization, refreshed while the queries run.
  jetson::BoardHandle board = jetson::open_board(
      options.board, options.root ? std::optional<std::filesystem::path>(*options.root) : std::nullopt);
  const std::string board_label = cli::measured_board_label(board);
  InferenceWatch watch;
  // Ctrl-C ends the batch being timed at its next query and runs no further batch: what was timed
  // is printed, then 130.
  experiments::DirectRuns direct(board, "jetchar infer", &watch);
  std::vector<proto::ExperimentSpec> experiments;
  for (const std::int64_t batch : options.batches) experiments.push_back(experiment_of(options, batch));
  const auto plan = direct.plan(experiments);  // each data set is opened once to check it
  std::vector<BatchRun> runs;
  bool interrupted = false;
  for (const auto& planned : plan.runs) {
    watch.last.reset();
    watch.max_batch = planned.spec.workload().batch_size();
    watch.trials = 0;
    auto record = direct.run(planned);
    interrupted = record.status() == proto::INTERRUPTED;
    if (!watch.last) {
      // Refused before its queries: the model, the data set or the board.
      if (interrupted) break;
      cli::throw_refused(
          record, fmt::format("inference {} with batch {}", options.model, planned.spec.workload().batch_size()));
    }
    watch.last->record = std::move(record);
    batch_line(watch.last->result, runs.size() + 1, plan.runs.size());
    runs.push_back(std::move(*watch.last));
    if (interrupted) break;
  }

  if (runs.empty()) {
    throw cli::CommandExit(cli::kInterrupted,
                           fmt::format("inference {} stopped by a signal before its first query", options.model));
  }
  if (options.json) {
    if (runs.size() == 1) {
      fmt::print("{}\n", run_json(runs.front(), watch.pretrained, board_label).dump(2));
    } else {
      auto json = nlohmann::json::array();
      for (const auto& run : runs) json.push_back(run_json(run, watch.pretrained, board_label));
      fmt::print("{}\n", json.dump(2));
    }
  } else {
    if (proto_scenario(options.scenario) == proto::SERVER) {
      print_server(runs, options, board_label);
    } else {
      print_table(runs, options, board_label);
    }
    cli::print_notes(runs.back().record);
  }
  if (interrupted) {
    std::fflush(stdout);
    throw cli::CommandExit(cli::kInterrupted,
                           fmt::format("inference {} stopped by a signal: {} of {} batch size(s) timed, the last "
                                       "one partly",
                                       options.model, runs.size(), options.batches.size()));
  }
  for (const auto& run : runs) {
    if (run.record.status() != proto::OK) {
      throw std::runtime_error(fmt::format("inference {} with batch {}: {} ({})", options.model, run.result.batch_size,
                                           proto::RunStatus_Name(run.record.status()), run.record.reason()));
    }
  }
}

void add_infer_command(CLI::App& app) {
  auto options = std::make_shared<InferOptions>();
  CLI::App* command = app.add_subcommand(
      "infer",
      "Time inference of a model on synthetic inputs or a data set's samples (SQuAD dev): per-batch latency "
      "percentiles, throughput and J/query");
  command->add_option("--model", options->model, "Model name (see `jetchar models`)")->required();
  command
      ->add_option("--batch", options->batches,
                   "Samples per query (batch size); a list such as 1,2,4,8 runs each, one row per batch")
      ->delimiter(',')
      ->capture_default_str()
      ->check(cli::between(1, 65536, "samples per query"));
  command->add_option("--seq-len", options->seq_len, "Sequence length for BERT-type models (default: 128)")
      ->check(cli::between(1, 65536, "tokens"));
  command
      ->add_option("--dataset", options->dataset,
                   "Query with this data set's samples instead of synthetic ones, collated before the timed "
                   "queries: KIND[/SPLIT]:PATH[?KEY=VALUE&...] as train takes it, its validation split unless the "
                   "text names one (squad:DIR reads DIR/dev-v1.1.json; squad:dev-v1.1.json that file); --seq-len sets "
                   "the windows' max_length")
      ->type_name("KIND:PATH");
  command->add_option("--warmup", options->warmup, "Untimed warm-up queries (per batch size)")
      ->capture_default_str()
      ->check(cli::at_least(0, "queries"));
  command
      ->add_option("--queries", options->queries,
                   "Minimum number of timed queries (default 100 unless --duration is given)")
      ->check(cli::at_least(1, "queries"));
  command
      ->add_option("--duration", options->duration_s,
                   "Minimum timed duration in seconds (with --queries, both minimums must be met)")
      ->check(cli::above(0, "seconds"));
  command->add_option("--precision", options->precision, "fp32, tf32, amp-fp16 (CUDA), bf16")->capture_default_str();
  command->add_option("--device", options->device, "cpu, cuda or cuda:N")->capture_default_str();
  command
      ->add_option(
          "--threads", options->threads,
          "LibTorch intra-op threads, and OpenBLAS's where LibTorch multiplies in it (default: LibTorch's choice)")
      ->check(cli::between(1, 1024, "threads"));
  command->add_option("--classes", options->classes, "Output classes (default: the model's)")
      ->check(cli::between(1, 1000000, "classes"));
  command->add_option("--seed", options->seed, "Seed of the weights and the synthetic inputs")
      ->check(jetchar::cli::unsigned_integer("a seed"))
      ->capture_default_str();
  command->add_option(
      "--pretrained", options->pretrained,
      "Hugging Face model folder (config.json, model.safetensors or pytorch_model.bin) whose weights "
      "a bert-* or distilbert* model runs with; a text data set uses its vocab.txt unless it names one");
  command
      ->add_option("--board", options->board,
                   "auto, host, jetson, or sim:<fixture>: whose rails give J/query (a simulated board's are modelled, "
                   "and its time model paces each query to the board's clocks)")
      ->capture_default_str();
  command->add_option("--root", options->root, "Read the kernel interfaces under this directory instead of /");
  command
      ->add_option("--scenario", options->scenario,
                   "MLPerf LoadGen's scenario: single-stream (back-to-back one-sample queries, needs --batch 1: "
                   "their p90 latency), offline (back-to-back batches: samples/s), server (one-sample queries "
                   "arriving at random at a rate, batched up to --batch: the highest rate whose p99 latency is "
                   "within --latency-bound); default: back-to-back batches with every percentile")
      ->check(CLI::IsMember({"single-stream", "offline", "server"}));
  command->add_option("--latency-bound", options->latency_bound,
                      "With --scenario server: the p99 latency a rate must meet, as 50ms, 0.05s or 500us (a bare "
                      "number is ms; default 100ms, LoadGen's)");
  command->add_flag("--json", options->json,
                    "Print JSON (with every latency and the energy per query) instead of the table; an array of "
                    "runs for a list of batch sizes");
  cli::add_examples(*command,
                    "Examples:\n"
                    "  jetchar infer --model mobilenetv3-small --batch 4 --queries 10\n"
                    "  jetchar infer --model bert-tiny --batch 8 --seq-len 128 --warmup 2 --queries 10\n"
                    "  jetchar infer --model bert-tiny-qa --dataset "
                    "'squad:examples/squad?vocab=examples/squad/vocab.txt' --batch 1,2,4,8 --seq-len 384 "
                    "--warmup 2 --queries 10 --board sim:agx-orin-r36\n"
                    "  jetchar infer --model lenet5 --scenario single-stream --queries 50\n"
                    "  jetchar infer --model lenet5 --scenario server --latency-bound 50ms --batch 4 --warmup 2 "
                    "--board sim:agx-orin-r36");
  command->callback([options] { run_infer(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(42, add_infer_command);
