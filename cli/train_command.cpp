// `jetchar train --model M --dataset KIND:PATH --batch B ...`: trains a model with the seed
// study's timer placement as one run of the route a sweep's runs take (experiments/direct_run.h):
// on the board named (the host's when it is not a Jetson), measured and recorded as a sweep's run
// is. Prints a per-epoch table (fetch stall, compute, E2E, samples/s, loss, accuracy, energy) or
// the whole result as JSON; while it runs, a progress bar on a terminal, else a line per epoch on
// stderr (a log file, CI, nohup or a pipe sees the run advance).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "cli/run_report.h"
#include "experiments/direct_run.h"
#include "experiments/distributed/rank_worker.h"
#include "experiments/run_settings.h"
#include "experiments/training/training_runner.h"
#include "jetson/open_board.h"
#include "loaders/dataset_spec.h"
#include "sweeps/phase_option.h"
#include "sweeps/slurm/step_world.h"

namespace {

using namespace jetchar;

struct TrainOptions {
  std::string model;
  std::string dataset;
  std::int64_t batch = 16;
  std::int64_t accumulate = 1;
  int workers = 0;
  std::int64_t epochs = 3;
  std::string precision = "fp32";
  std::string device = "cpu";
  std::optional<std::int64_t> max_batches;
  std::optional<int> threads;
  std::optional<double> learning_rate;
  std::optional<double> warmup_proportion;
  std::vector<std::string> phases;  ///< --phase, in order
  std::optional<std::string> optimizer;
  std::optional<double> weight_decay;
  std::uint64_t seed = 0;
  std::optional<std::string> pretrained;
  bool async = false;
  bool eval = false;
  std::optional<double> target_f1;
  std::size_t n_best_size = 20;
  std::size_t max_answer_length = 30;
  std::string board = "auto";
  std::optional<std::string> root;
  bool json = false;
  bool minibatches = false;
  // Data-parallel training, torchrun's options.
  std::uint32_t nproc_per_node = 1;
  std::uint32_t nnodes = 1;
  std::uint32_t node_rank = 0;
  std::optional<std::string> master_addr;
  std::uint32_t master_port = 0;
  std::string backend = "gloo";
  std::optional<double> dist_timeout;
  bool world_given = false;  ///< --nnodes or --node-rank on the command line
};

struct WorkerOptions {
  experiments::distributed::RankPlace place;
  experiments::distributed::Rendezvous rendezvous;
  double timeout_s = 300;
};

std::string seconds(std::int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e9); }

std::string accuracy_percent(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}", *value * 100) : std::string("-");
}

// The one-run experiment the options ask for, as a sweep's spec would write it; the executor
// resolves its defaults and builds the trainer's settings from it, as for every run of a sweep.
proto::ExperimentSpec experiment_of(const TrainOptions& options) {
  proto::ExperimentSpec spec;
  spec.set_name("train");
  auto* w = spec.mutable_workload();
  w->set_task(proto::TRAIN);
  w->set_model(options.model);
  w->set_dataset(loaders::resolve_dataset_spec(options.dataset).text);
  w->set_batch_size(static_cast<std::uint32_t>(options.batch));
  w->set_accumulate(static_cast<std::uint32_t>(options.accumulate));
  w->set_epochs(static_cast<std::uint32_t>(options.epochs));
  if (options.max_batches) {
    w->set_max_minibatches(static_cast<std::uint32_t>(
        std::min<std::int64_t>(*options.max_batches, std::numeric_limits<std::uint32_t>::max())));
  }
  w->set_precision(experiments::proto_precision(experiments::parse_precision(options.precision)));
  w->set_device(options.device);
  if (options.threads) w->set_threads(static_cast<std::uint32_t>(*options.threads));
  if (options.learning_rate) w->set_learning_rate(*options.learning_rate);
  if (options.warmup_proportion) w->set_warmup_proportion(*options.warmup_proportion);
  for (const auto& phase : options.phases) *w->add_phases() = sweeps::parse_phase_option(phase);
  if (options.optimizer) {
    w->set_optimizer(experiments::parse_optimizer(*options.optimizer) == experiments::OptimizerKind::kSgd
                         ? proto::SGD
                         : proto::ADAMW);
  }
  if (options.weight_decay) w->set_weight_decay(*options.weight_decay);
  w->set_seed(options.seed);
  if (options.pretrained) w->set_pretrained(*options.pretrained);
  w->set_async(options.async);
  w->set_evaluate(options.eval);
  if (options.target_f1) w->set_target_f1(*options.target_f1);
  w->set_n_best_size(static_cast<std::uint32_t>(options.n_best_size));
  w->set_max_answer_length(static_cast<std::uint32_t>(options.max_answer_length));
  if (options.nproc_per_node * options.nnodes > 1) {
    auto* d = w->mutable_distributed();
    d->set_nproc_per_node(options.nproc_per_node);
    d->set_nnodes(options.nnodes);
    d->set_node_rank(options.node_rank);
    if (options.master_addr) d->set_master_addr(*options.master_addr);
    d->set_master_port(options.master_port);
    d->set_backend(options.backend);
    if (options.dist_timeout) d->set_timeout_s(*options.dist_timeout);
  }
  spec.mutable_measurement()->set_minibatch_records(options.minibatches);
  spec.mutable_loader()->set_workers(static_cast<std::uint32_t>(options.workers));
  spec.mutable_loader()->set_pin_memory(options.device.starts_with("cuda"));
  return spec;
}

// --target-f1: the first epoch whose dev F1 reached it, the training time and, where the board
// measures power, the energy until then (RunResult.target, as a sweep stores it).
nlohmann::json target_json(const proto::TargetOutcome& target) {
  auto optional = [](bool has, auto value) { return has ? nlohmann::json(value) : nlohmann::json(nullptr); };
  return {{"target_f1", target.target_f1()},
          {"epoch", optional(target.has_epoch(), target.epoch())},
          {"time_s", optional(target.has_time_s(), target.time_s())},
          {"energy_j", optional(target.has_energy_j(), target.energy_j())},
          {"best_f1", optional(target.has_best_f1(), target.best_f1())}};
}

void print_target(const proto::TargetOutcome& target) {
  if (target.has_epoch()) {
    fmt::print("target F1 {:.2f} % reached after epoch {}: {:.3f} s of training{}\n", target.target_f1() * 100,
               target.epoch(), target.time_s(),
               target.has_energy_j() ? fmt::format(", {:.3f} J", target.energy_j()) : "");
  } else {
    fmt::print("target F1 {:.2f} % not reached (best {})\n", target.target_f1() * 100,
               target.has_best_f1() ? fmt::format("{:.2f} %", target.best_f1() * 100) : std::string("-"));
  }
}

// A progress bar on stderr: the epoch and its minibatches, erased when the epoch ends.
std::function<void(const experiments::TrainingProgress&)> progress_bar(std::int64_t epochs) {
  return [epochs](const experiments::TrainingProgress& progress) {
    constexpr int kWidth = 30;
    const auto filled = progress.batches_planned > 0 ? progress.batch * kWidth / progress.batches_planned : 0;
    const auto of = epochs > 0 ? fmt::format("/{}", epochs) : std::string();  // a phased run's count is its steps'
    std::fprintf(stderr, "\repoch %lld%s [%s%s] %lld/%lld", static_cast<long long>(progress.epoch + 1), of.c_str(),
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(kWidth - filled), '.').c_str(),
                 static_cast<long long>(progress.batch), static_cast<long long>(progress.batches_planned));
    if (progress.batch == progress.batches_planned) std::fputs("\r\033[K", stderr);
  };
}

// Off a terminal, one line per epoch when it ends, flushed at once (stderr is unbuffered, but a
// line must not wait for the next): which epoch of how many, its minibatches, its E2E time (the
// board's: a simulated board's modelled time, as the table shows it) and its mean loss. Its words
// stay put so that a log can be grepped: "epoch I/N: B minibatches, S s, loss L".
std::function<void(const experiments::EpochResult&)> epoch_lines(std::int64_t epochs) {
  return [epochs](const experiments::EpochResult& epoch) {
    // A phased run's epochs are counted by its phases' steps: "phase P epoch I: ...".
    const auto which = epoch.phase > 0 ? fmt::format("phase {} epoch {}", epoch.phase, epoch.epoch + 1)
                                       : fmt::format("epoch {}/{}", epoch.epoch + 1, epochs);
    std::fputs(fmt::format("{}: {} minibatches, {} s, loss {}{}\n", which, epoch.batches, seconds(epoch.e2e_ns),
                           epoch.mean_loss ? fmt::format("{:.4f}", *epoch.mean_loss) : "-",
                           epoch.completed           ? ""
                           : epoch.reached_max_steps ? " (its phase's steps ended inside it)"
                                                     : " (stopped inside it)")
                   .c_str(),
               stderr);
    std::fflush(stderr);
  };
}

// The trainer's own result (every resolved setting, per-epoch accuracies) and the run's progress:
// a bar on a terminal, a line per epoch elsewhere.
class TrainingWatch : public experiments::WorkloadObserver {
 public:
  TrainingWatch(std::function<void(const experiments::TrainingProgress&)> progress,
                std::function<void(const experiments::EpochResult&)> epoch_done)
      : progress_(std::move(progress)), epoch_done_(std::move(epoch_done)) {}
  void minibatch_done(const experiments::TrainingProgress& progress) override {
    if (progress_) progress_(progress);
  }
  void epoch_done(const experiments::EpochResult& epoch) override {
    if (epoch_done_) epoch_done_(epoch);
  }
  void trained(const experiments::TrainingResult& result, const experiments::RunInputs& inputs) override {
    this->result = result;
    this->inputs = inputs;
  }

  std::optional<experiments::TrainingResult> result;
  experiments::RunInputs inputs;

 private:
  std::function<void(const experiments::TrainingProgress&)> progress_;
  std::function<void(const experiments::EpochResult&)> epoch_done_;
};

void print_pretrained(const experiments::PretrainedLoad& pretrained) {
  // A head has a few fresh tensors; ELECTRA's fresh generator has hundreds (--json lists them all).
  constexpr std::size_t kNamed = 6;
  std::string fresh;
  if (pretrained.fresh.size() > kNamed) {
    fresh =
        fmt::format(" ({} and {} more)", fmt::join(pretrained.fresh.begin(), pretrained.fresh.begin() + kNamed, ", "),
                    pretrained.fresh.size() - kNamed);
  } else if (!pretrained.fresh.empty()) {
    fresh = fmt::format(" ({})", fmt::join(pretrained.fresh, ", "));
  }
  fmt::print("pretrained {}: {} tensors loaded, {} fresh{}, {} unused\n", pretrained.weights_file,
             pretrained.loaded_tensors, pretrained.fresh.size(), fresh, pretrained.unused.size());
}

// A data-parallel run: the world, and every rank's time per epoch with its all-reduces (what of
// them the backward did not hide is the exposed communication).
void print_ranks(const proto::DistributedOutcome& world) {
  fmt::print("data-parallel: {} ranks ({}), global batch {}{}\n", world.world_size(), world.backend(),
             world.global_batch(),
             world.has_slowest_rank() ? fmt::format(", slowest rank {}", world.slowest_rank()) : std::string());
  fmt::print("{:>5} {:>5} {:>8} {:>10} {:>11} {:>9} {:>12} {:>10} {:>12}\n", "epoch", "rank", "samples", "stall s",
             "compute s", "E2E s", "allreduce s", "exposed s", "MiB reduced");
  for (const auto& r : world.ranks()) {
    fmt::print("{:>5} {:>5} {:>8} {:>10.3f} {:>11.3f} {:>9.3f} {:>12.3f} {:>10.3f} {:>12.1f}\n", r.epoch(), r.rank(),
               r.samples(), r.stall_s(), r.compute_s(), r.e2e_s(), r.allreduce_s(), r.exposed_communication_s(),
               static_cast<double>(r.allreduce_bytes()) / 1048576.0);
  }
}

// Node 0 of a world of several nodes: its epochs' energy is the sum over every node's board
// (experiments/distributed/world_energy.h); each board's own energy over the epochs, node by node.
void print_node_energy(const proto::RunResult& record, const std::string& board_label) {
  std::map<std::uint32_t, std::vector<const proto::NodeEpochEnergy*>> nodes;
  for (const auto& e : record.distributed().node_energy()) nodes[e.node_rank()].push_back(&e);
  const std::string source = record.context().energy_source();
  fmt::print("{}\n", source.empty()
                         ? fmt::format("energy of the world: absent, a board of its {} measures none (see the note)",
                                       nodes.size())
                         : fmt::format("energy: {}, the world's {} boards (this node's: {}); an epoch's energy is "
                                       "over its E2E time on each board",
                                       source, nodes.size(), board_label));
  for (const auto& [node, epochs] : nodes) {
    double energy_j = 0;
    bool measured = true;
    for (const auto* e : epochs) {
      measured = measured && e->has_energy_j();
      energy_j += e->energy_j();
    }
    const auto& first = *epochs.front();
    fmt::print("  node {}: {}{}: {}\n", node, first.board(), first.hostname().empty() ? "" : " on " + first.hostname(),
               measured ? fmt::format("{:.3f} J over {} epoch(s), {}", energy_j, epochs.size(), first.energy_source())
                        : std::string("no energy measured"));
  }
}

// A phased pretraining run's phases: settings, throughput, final loss and energy of each.
void print_phases(const proto::RunResult& record) {
  fmt::print("{:>5} {:>6} {:>7} {:>10} {:>10} {:>6} {:>8} {:>9} {:>8} {:>10} {:>9}\n", "phase", "seq", "batch",
             "accumulate", "lr", "steps", "samples", "time s", "seq/s", "final loss", "energy J");
  for (const auto& phase : record.phases()) {
    fmt::print("{:>5} {:>6} {:>7} {:>10} {:>10} {:>6} {:>8} {:>9.3f} {:>8.1f} {:>10} {:>9}\n", phase.phase(),
               phase.sequence_length(), phase.batch_size(), phase.accumulate(), phase.learning_rate(), phase.steps(),
               phase.samples(), phase.time_s(), phase.sequences_per_s(),
               phase.has_final_loss() ? fmt::format("{:.4f}", phase.final_loss()) : "-",
               phase.has_energy_j() ? fmt::format("{:.3f}", phase.energy_j()) : "-");
  }
}

// The settings line, the per-epoch table with each epoch's energy from the record, entity and
// SQuAD scores, later-epoch medians, memory peaks and where the energy comes from.
void print_result(const experiments::TrainingResult& result, const proto::RunResult& record,
                  const TrainOptions& options, const std::string& dataset_name, const std::string& board_label) {
  fmt::print(
      "model {} ({} parameters)  data {}  batch {} x accumulate {}  workers {}  device {}  precision {}  "
      "optimizer {} lr {} weight decay {}  seed {}  threads {}  timing {}\n",
      result.model, result.parameters, dataset_name, options.batch, result.accumulate, options.workers, result.device,
      result.precision, result.optimizer, result.learning_rate, result.weight_decay, result.seed, result.threads,
      result.synchronized ? "synchronized per minibatch" : "async (host-side times)");
  if (record.has_distributed()) print_ranks(record.distributed());
  fmt::print("{:>5} {:>8} {:>10} {:>11} {:>9} {:>10} {:>9} {:>10} {:>9} {:>9} {:>7}\n", "epoch", "batches", "stall s",
             "compute s", "E2E s", "samples/s", "loss", "train %", "eval %", "energy J", "W");
  for (std::size_t i = 0; i < result.epochs.size(); ++i) {
    const auto& epoch = result.epochs[i];
    const auto* stored =
        i < static_cast<std::size_t>(record.epochs_size()) ? &record.epochs(static_cast<int>(i)) : nullptr;
    fmt::print(
        "{:>5} {:>8} {:>10} {:>11} {:>9} {:>10.1f} {:>9} {:>10} {:>9} {:>9} {:>7}{}{}\n", epoch.epoch, epoch.batches,
        seconds(epoch.stall_ns), seconds(epoch.compute_ns), seconds(epoch.e2e_ns), epoch.samples_per_s(),
        epoch.mean_loss ? fmt::format("{:.4f}", *epoch.mean_loss) : "-", accuracy_percent(epoch.train_accuracy),
        accuracy_percent(epoch.eval_accuracy),
        stored != nullptr && stored->has_energy_j() ? fmt::format("{:.3f}", stored->energy_j()) : "-",
        stored != nullptr && stored->has_average_power_w() ? fmt::format("{:.2f}", stored->average_power_w()) : "-",
        epoch.completed ? "" : (epoch.reached_max_steps ? "  (cut at its phase's steps)" : "  (incomplete)"),
        epoch.phase > 0 ? fmt::format("  phase {}", epoch.phase) : "");
  }
  for (const auto& epoch : result.epochs) {
    if (epoch.eval_entity_f1) {
      fmt::print("epoch {} entities on the {}: precision {:.2f} %, recall {:.2f} %, F1 {:.2f} %\n", epoch.epoch,
                 result.eval_name, *epoch.eval_entity_precision * 100, *epoch.eval_entity_recall * 100,
                 *epoch.eval_entity_f1 * 100);
    }
    if (epoch.eval_squad_f1) {
      fmt::print("epoch {} SQuAD on the {}: exact match {:.2f} %, F1 {:.2f} %\n", epoch.epoch, result.eval_name,
                 *epoch.eval_squad_exact_match * 100, *epoch.eval_squad_f1 * 100);
    }
  }
  if (record.phases_size() > 0) print_phases(record);
  const auto summary = result.summary();
  if (summary.later_e2e_ns_median) {
    fmt::print("later epochs (median): stall {} s, compute {} s, E2E {} s, {:.1f} samples/s\n",
               seconds(static_cast<std::int64_t>(*summary.later_stall_ns_median)),
               seconds(static_cast<std::int64_t>(*summary.later_compute_ns_median)),
               seconds(static_cast<std::int64_t>(*summary.later_e2e_ns_median)), *summary.later_samples_per_s_median);
  }
  const auto& memory = result.memory;
  fmt::print("memory: peak RSS {} MiB, lowest MemAvailable {} MiB{}\n",
             memory.peak_rss_kib ? fmt::format("{:.1f}", *memory.peak_rss_kib / 1024.0) : "-",
             memory.min_mem_available_kib ? fmt::format("{:.1f}", *memory.min_mem_available_kib / 1024.0) : "-",
             memory.cuda_peak_allocated_bytes
                 ? fmt::format(", CUDA peak allocated {:.1f} MiB", *memory.cuda_peak_allocated_bytes / 1048576.0)
                 : "");
  if (record.distributed().node_energy_size() > 0) {
    print_node_energy(record, board_label);
  } else {
    fmt::print("{}\n", cli::energy_line(record.context().energy_source(), board_label,
                                        "an epoch's energy is over its E2E time", "so energy J and W are absent"));
  }
}

// A task of a multi-task srun step is one node of the data-parallel world, as srun's environment
// places it (sweeps/slurm/step_world.h), unless --nnodes or --node-rank place it; an address or
// port given stands.
void place_in_slurm_step(TrainOptions& options) {
  if (options.world_given) return;
  const auto world = sweeps::slurm_step_world(
      sweeps::process_environment(), options.master_addr,
      options.master_port != 0 ? std::optional<std::uint32_t>(options.master_port) : std::nullopt);
  if (!world) return;
  options.nnodes = world->nnodes;
  options.node_rank = world->node_rank;
  options.master_addr = world->master_addr;
  options.master_port = world->master_port;
}

void run_train(TrainOptions options) {
  if (options.target_f1 && !options.eval) {
    throw std::invalid_argument(fmt::format("--target-f1 {} needs --eval: the target is a dev F1", *options.target_f1));
  }
  place_in_slurm_step(options);
  const auto spec = experiment_of(options);
  jetson::BoardHandle board = jetson::open_board(
      options.board, options.root ? std::optional<std::filesystem::path>(*options.root) : std::nullopt);
  // --json as well: the JSON goes to stdout alone, and a run whose output a script takes is the
  // long unattended run whose log (stderr) most needs to show that it advances; a caller that
  // wants stderr quiet sends it elsewhere.
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  const std::int64_t epochs = options.phases.empty() ? options.epochs : 0;
  TrainingWatch watch(terminal ? progress_bar(epochs) : nullptr, terminal ? nullptr : epoch_lines(epochs));
  // Ctrl-C ends the run at the next minibatch: the epochs finished by then are printed, then 130.
  experiments::DirectRuns runs(board, "jetchar train", &watch);
  const auto record = runs.run(runs.plan({spec}).runs.front());
  if (!watch.result) cli::throw_refused(record, "training " + options.model);
  const auto& result = *watch.result;
  const std::string board_label = cli::measured_board_label(board);
  if (options.json) {
    auto json = experiments::to_json(result);
    if (watch.inputs.pretrained) json["pretrained"] = experiments::to_json(*watch.inputs.pretrained);
    if (record.has_target()) json["target"] = target_json(record.target());
    json["board"] = board_label;
    json["record"] = cli::record_json(record);
    fmt::print("{}\n", json.dump(2));
  } else {
    if (watch.inputs.pretrained) print_pretrained(*watch.inputs.pretrained);
    print_result(result, record, options, watch.inputs.dataset, board_label);
    if (record.has_target()) print_target(record.target());
    cli::print_notes(record);
  }
  if (record.status() == proto::INTERRUPTED) {
    std::fflush(stdout);
    const auto finished = std::count_if(result.epochs.begin(), result.epochs.end(),
                                        [](const experiments::EpochResult& epoch) { return epoch.completed; });
    throw cli::CommandExit(
        cli::kInterrupted,
        fmt::format("training {} stopped by a signal after {} finished epoch(s) of {}; the table "
                    "above holds what was measured (the last epoch partial)",
                    result.model, finished,
                    epochs > 0 ? std::to_string(epochs) : fmt::format("{} phase(s)", options.phases.size())));
  }
  if (record.status() != proto::OK) {
    throw std::runtime_error(
        fmt::format("training {}: {} ({})", result.model, proto::RunStatus_Name(record.status()), record.reason()));
  }
}

std::string kind_names() {
  std::vector<std::string> names;
  for (const auto& [name, description] : loaders::dataset_kinds()) names.push_back(name);
  return fmt::format("{}", fmt::join(names, ", "));
}

void add_train_command(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand(
      "train", "Train a model and time each minibatch's fetch stall and compute (seed-study timer placement)");
  command->add_option("--model", options->model, "Model name (see `jetchar models`)")->required();
  command
      ->add_option("--dataset", options->dataset,
                   "KIND[/SPLIT]:PATH[?KEY=VALUE&...] with KIND one of " + kind_names() +
                       "; e.g. "
                       "fashion-mnist:/usr/share/datasets/fashion-mnist, cifar10:DIR, synthetic:3x32x32?samples=1000, "
                       "conll2003:DIR?vocab=vocab.txt; or a path whose kind is detected")
      ->required();
  command->add_option("--batch", options->batch, "Minibatch size")
      ->capture_default_str()
      ->check(cli::between(1, 65536, "samples per minibatch"));
  command
      ->add_option("--accumulate", options->accumulate,
                   "Minibatches per optimizer step (gradient accumulation; total batch = batch x this)")
      ->capture_default_str()
      ->check(cli::between(1, 4096, "minibatches per step"));
  command->add_option("--workers", options->workers, "Data-loader worker threads (0 = load in the training thread)")
      ->capture_default_str()
      ->check(cli::between(0, 256, "worker threads"));
  command->add_option("--epochs", options->epochs, "Epochs (epoch 0 is reported apart)")
      ->capture_default_str()
      ->check(cli::between(1, 10000, "epochs"));
  command->add_option("--precision", options->precision, "fp32, tf32, amp-fp16 (CUDA), bf16")->capture_default_str();
  command->add_option("--device", options->device, "cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--max-batches", options->max_batches, "At most this many minibatches per epoch")
      ->check(cli::at_least(1, "minibatches"));
  command
      ->add_option(
          "--threads", options->threads,
          "LibTorch intra-op threads, and OpenBLAS's where LibTorch multiplies in it (default: LibTorch's choice)")
      ->check(cli::between(1, 1024, "threads"));
  command->add_option("--lr", options->learning_rate, "Learning rate (default: SGD 0.01, AdamW 5e-5)")
      ->check(cli::above(0, "learning rate"));
  command
      ->add_option("--warmup-proportion", options->warmup_proportion,
                   "Linear warm-up over this fraction of the optimizer steps, then linear decay to 0 (Hugging "
                   "Face's linear schedule; default: constant learning rate)")
      ->check(cli::between(0.0, 1.0, "fraction of the steps"));
  command->add_option("--phase", options->phases,
                      "A pretraining phase, repeated in order, each on the weights the one before left: "
                      "seq=TOKENS,steps=N[,batch=N][,accumulate=N][,lr=RATE][,warmup=FRACTION] (the others' "
                      "defaults: --batch, --accumulate, --lr, --warmup-proportion); on a text corpus, instead of "
                      "--epochs and --max-batches");
  command
      ->add_option("--optimizer", options->optimizer,
                   "sgd (momentum 0.9, the seed study's) or adamw (the BERT fine-tuning scripts'); default: adamw for "
                   "BERT-type models, sgd otherwise")
      ->check(CLI::IsMember({"sgd", "adamw"}, CLI::ignore_case));
  command
      ->add_option("--weight-decay", options->weight_decay,
                   "AdamW's decoupled weight decay, or SGD's L2 term (default: adamw 0.01, sgd 0)")
      ->check(cli::between(0.0, 1.0, "weight decay"));
  command->add_option("--seed", options->seed, "Seed of weights, shuffling and augmentation")
      ->check(jetchar::cli::unsigned_integer("a seed"))
      ->capture_default_str();
  command->add_option(
      "--pretrained", options->pretrained,
      "Hugging Face model folder (config.json, vocab.txt, model.safetensors or pytorch_model.bin) "
      "whose weights start a bert-* or distilbert* model; a missing task head is initialised as HF does. Text data "
      "sets use its vocab.txt unless they name one");
  command->add_flag("--async", options->async,
                    "No device synchronize per minibatch (stall/compute become host-side times; marked in the output)");
  command->add_flag("--eval", options->eval,
                    "Evaluate on the validation split after every epoch (untimed): CoNLL-2003 valid.txt (entity "
                    "precision/recall/F1), SQuAD's dev file (EM and F1), a corpus's ?dev= file (masked-LM loss and "
                    "accuracy), never the training file");
  command
      ->add_option("--target-f1", options->target_f1,
                   "With --eval: report the first epoch whose dev F1 reaches this fraction (0.885 for 88.5 %) and "
                   "the training time until then")
      ->check(cli::between(0.0, 1.0, "F1 as a fraction"));
  command
      ->add_option("--n-best-size", options->n_best_size,
                   "SQuAD answers: start and end candidates per window (run_qa.py's n_best_size)")
      ->capture_default_str()
      ->check(cli::between(1, 1000, "candidates"));
  command
      ->add_option("--max-answer-length", options->max_answer_length,
                   "SQuAD answers: longest answer in word pieces (run_qa.py's max_answer_length)")
      ->capture_default_str()
      ->check(cli::between(1, 1000, "word pieces"));
  command
      ->add_option("--board", options->board,
                   "auto, host, jetson, or sim:<fixture>: whose rails give each epoch's energy (a simulated board's "
                   "are modelled, and its time model paces each minibatch's compute to the board's clocks)")
      ->capture_default_str();
  command->add_option("--root", options->root, "Read the kernel interfaces under this directory instead of /");
  command
      ->add_option("--nproc-per-node", options->nproc_per_node,
                   "Data-parallel ranks (processes) on this machine, as torchrun's: each trains --batch samples of "
                   "every global step (global batch = ranks x batch) and the gradients are averaged before each step")
      ->capture_default_str()
      ->check(cli::between(1, 256, "ranks per machine"));
  command
      ->add_option("--nnodes", options->nnodes,
                   "Machines of the data-parallel world (each runs jetchar train). As one task of an srun step of "
                   "several tasks, without --nnodes and --node-rank: each task is a node, nnodes = SLURM_NTASKS")
      ->capture_default_str()
      ->check(cli::between(1, 1024, "machines"));
  command
      ->add_option("--node-rank", options->node_rank,
                   "This machine's place, 0 .. nnodes-1 (node 0 hosts the rendezvous); under srun: SLURM_PROCID")
      ->capture_default_str();
  command->add_option(
      "--master-addr", options->master_addr,
      "Node 0's address (default 127.0.0.1; under srun: the first node of SLURM_STEP_NODELIST, task 0's)");
  command
      ->add_option("--master-port", options->master_port,
                   "The rendezvous's TCP port on node 0 (default: a free one; required with --nnodes > 1; under "
                   "srun: 29500 + SLURM_JOB_ID % 3000)")
      ->check(cli::between(0, 65535, "TCP port"));
  command->add_option("--backend", options->backend, "Collective backend: gloo (CPUs, Jetsons) or nccl (CUDA)")
      ->capture_default_str()
      ->check(CLI::IsMember({"gloo", "nccl"}));
  command
      ->add_option("--dist-timeout", options->dist_timeout,
                   "Seconds the rendezvous and each collective wait for a silent rank (default 300; a rank that dies "
                   "is seen at once)")
      ->check(cli::between(0.001, 86400.0, "seconds"));
  command->add_flag("--minibatches", options->minibatches,
                    "Keep every minibatch's fetch stall, compute, energy and loss (a data-parallel run's: the mean "
                    "over the ranks) in the JSON output and the record");
  command->add_flag("--json", options->json,
                    "Print the whole result as JSON, with the record a sweep would store for the run (\"record\": "
                    "resolved settings, board context, energy per epoch)");
  jetchar::cli::add_examples(
      *command,
      "Examples:\n"
      "  jetchar train --model lenet5 --dataset fashion-mnist:/usr/share/datasets/fashion-mnist --epochs 2 "
      "--max-batches 50\n"
      "  jetchar train --model resnet18-cifar --dataset 'synthetic:3x32x32?samples=64' --batch 16 --epochs 1\n"
      "  jetchar train --model lenet5 --dataset 'synthetic:1x28x28?samples=256' --batch 32 --epochs 1 "
      "--nproc-per-node 2\n"
      "  jetchar train --model electra-small --dataset corpus:examples/corpus/jetson.txt --batch 4 --lr 1e-4 "
      "--phase seq=32,steps=4 --phase seq=64,steps=2,batch=2");
  command->callback([options, command] {
    options->world_given = command->count("--nnodes") > 0 || command->count("--node-rank") > 0;
    run_train(*options);
  });

  // A data-parallel run's other ranks, started by its first (experiments/distributed/node_ranks.h).
  auto worker = std::make_shared<WorkerOptions>();
  CLI::App* rank = app.add_subcommand("rank-worker", "One rank of a data-parallel `jetchar train` (its child process)");
  rank->group("");  // hidden: started by train only
  rank->add_option("--rank", worker->place.rank)->required();
  rank->add_option("--local-rank", worker->place.local_rank)->required();
  rank->add_option("--node-rank", worker->place.node_rank)->required();
  rank->add_option("--world-size", worker->place.world_size)->required();
  rank->add_option("--master-addr", worker->rendezvous.master_addr)->required();
  rank->add_option("--master-port", worker->rendezvous.master_port)->required();
  rank->add_option("--backend", worker->rendezvous.backend)->required();
  rank->add_option("--timeout-s", worker->timeout_s)->required();
  rank->callback([worker] {
    worker->rendezvous.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(worker->timeout_s * 1000));
    experiments::distributed::run_rank_worker(worker->rendezvous, worker->place);
  });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(41, add_train_command);
