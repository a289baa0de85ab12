// The training loop with the seed study's timer placement (benchmarks-and-formats.md §1.2):
//   fetch stall = waiting for BatchSource::next() plus the host-to-device copy,
//   compute     = zero_grad → forward → loss → backward → optimizer step, ended by a device synchronize,
//   E2E epoch   = the whole epoch loop.
// Epoch 0 (cold cache) is reported apart from the later epochs. In async mode the per-batch
// synchronizes are left out: stall and compute then measure host-side time only, and the result
// says so. Out of memory ends the run with status OOM; the caller goes on.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "experiments/models/network.h"
#include "experiments/training/data_parallel.h"
#include "experiments/training/memory_monitor.h"
#include "experiments/training/precision.h"
#include "loaders/batch.h"
#include "loaders/text/squad_predictions.h"
#include "sysfs/root.h"

namespace jetchar::experiments {

enum class RunStatus { kOk, kOom, kFailed, kInvalid };
std::string_view run_status_name(RunStatus status);

enum class OptimizerKind { kSgd, kAdamW };
std::string_view optimizer_name(OptimizerKind kind);
/// "sgd" or "adamw" (any case); throws std::invalid_argument naming the text and the valid names.
OptimizerKind parse_optimizer(std::string_view text);

struct EpochResult;

struct TrainingProgress {
  std::int64_t epoch = 0;
  std::int64_t batch = 0;            ///< batches done in this epoch
  std::int64_t batches_planned = 0;  ///< this epoch's batches (after the bound)
  std::int64_t stall_ns = 0;         ///< of the minibatch just done
  std::int64_t compute_ns = 0;       ///< of the minibatch just done
};

struct TrainingConfig {
  torch::Device device = torch::kCPU;
  std::int64_t epochs = 1;
  /// Minibatches whose gradients are summed per optimizer step (total batch = batch × accumulate).
  std::int64_t accumulate = 1;
  Precision precision = Precision::kFp32;
  /// The seed study synchronizes after every minibatch; false = async mode.
  bool sync_per_batch = true;
  /// Bound on minibatches per epoch, for short profiling runs.
  std::optional<std::int64_t> max_batches;
  /// Bound on optimizer steps over the run (a pretraining phase's steps): the run ends once this
  /// many are taken, its last epoch cut there (completed = false when that is inside it), and a
  /// learning-rate schedule spans them.
  std::optional<std::int64_t> max_steps;
  /// Default: AdamW for BERT-type (token input) tasks, SGD otherwise.
  std::optional<OptimizerKind> optimizer;
  /// Default: 0.01 for SGD (seed study), 5e-5 for AdamW.
  std::optional<double> learning_rate;
  /// Linear warm-up over this fraction of the optimizer steps, then linear decay to 0
  /// (linear_schedule.h); unset = the constant learning rate.
  std::optional<double> warmup_proportion;
  double momentum = 0.9;
  /// AdamW's decoupled weight decay (torch::optim::AdamW), or SGD's L2 term added to the gradient
  /// (torch::optim::SGD); a finite number >= 0. Default: 0.01 for AdamW (the BERT fine-tuning
  /// scripts' setting), 0 for SGD (the seed study's).
  std::optional<double> weight_decay;
  std::uint64_t seed = 0;
  /// Keep one record per minibatch in the result.
  bool keep_minibatch_records = false;
  /// Keep each optimizer step's loss in its epoch (EpochResult::step_losses): a pretraining phase's
  /// loss curve.
  bool keep_step_losses = false;
  /// Evaluated (untimed, no_grad) after every epoch when set.
  loaders::BatchSource* eval_source = nullptr;
  /// Label names by id of the evaluated data set (its classes). For token classification they give
  /// entity-level precision, recall and F1 (loaders/text/conll_evaluation.h) besides the accuracy.
  std::vector<std::string> eval_labels;
  /// The evaluated SQuAD data set, for question answering: its windows' logits give each
  /// question's answer (loaders/text/squad_predictions.h) and the epoch's SQuAD EM and F1. The
  /// eval source must yield this data set's samples in order (an unshuffled Pipeline over it).
  const loaders::text::SquadDataset* eval_squad = nullptr;
  loaders::text::SquadSpanOptions eval_squad_spans;
  /// What was evaluated (the split and its data set, e.g. "validation: conll2003/valid.txt"),
  /// carried into the result.
  std::string eval_name;
  /// Called after every minibatch from the training thread (progress bars).
  std::function<void(const TrainingProgress&)> on_batch;
  /// Asked after every minibatch (after on_batch): true ends the run there, as adaptive profiling
  /// does once the measurements have settled. The epoch is closed as it stands (completed =
  /// false) and no further epoch runs.
  std::function<bool(const TrainingProgress&)> stop_after;
  /// A simulated board's time model (jetson/simulated/modelled_time_pacer.h): called when a
  /// minibatch's compute is done (after its synchronize) with when it began and its samples;
  /// waits until the mode's modelled compute time has passed and returns when the board's
  /// compute ended: now, or earlier when the host overran it (that delay is the host's, and the
  /// epoch leaves it out: EpochResult::host_delay_ns). Unset: compute ends when the host is done.
  std::function<std::chrono::steady_clock::time_point(std::chrono::steady_clock::time_point compute_start,
                                                      std::int64_t samples)>
      pace_compute;
  /// The same for the fetch: called when minibatch `index` of the epoch is on the device, with when
  /// its fetch began; returns when the board's fetch stall ended (now, or earlier when the host's
  /// loader overran it: the host's delay, left out of the epoch). Unset: the stall is the host's.
  std::function<std::chrono::steady_clock::time_point(std::chrono::steady_clock::time_point fetch_start,
                                                      std::int64_t index, std::int64_t samples)>
      pace_fetch;
  /// Data-parallel training (experiments/distributed/): this process is one rank of several, its
  /// source yields its shard, and every optimizer step's gradients are averaged over the ranks.
  /// The epochs' samples, loss and accuracy are then the world's, and each keeps every rank's
  /// figures (EpochResult::ranks). Unset: one process.
  DataParallel* data_parallel = nullptr;
  /// Called when an epoch's E2E time has been taken (after its final synchronize), before its
  /// sums are read or it is evaluated: an energy window that ends here covers the E2E interval.
  std::function<void()> on_epoch_end;
  /// Called with each epoch's result once it is whole (loss read, evaluated), from the training
  /// thread: a progress line per epoch.
  std::function<void(const EpochResult&)> on_epoch_done;
};

struct MinibatchRecord {
  std::int64_t epoch = 0;
  std::int64_t index = 0;
  std::int64_t samples = 0;
  /// When its fetch began, on CLOCK_MONOTONIC (std::chrono::steady_clock), the clock the power
  /// trace uses: the minibatch spans [start_ns, start_ns + stall_ns + compute_ns].
  std::int64_t start_ns = 0;
  std::int64_t stall_ns = 0;
  std::int64_t compute_ns = 0;
  /// Its loss, read at the end of the epoch (never a device sync per minibatch); nullopt when the
  /// epoch failed before that.
  std::optional<double> loss;
};

/// One rank's share of a data-parallel epoch.
struct RankEpochFigures {
  std::int64_t rank = 0;
  std::int64_t samples = 0;
  std::int64_t stall_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t e2e_ns = 0;
  StepCommunication communication;  ///< summed over the epoch's optimizer steps
};

struct EpochResult {
  std::int64_t epoch = 0;
  /// Its pretraining phase, from 1, in a phased run (workload.phases); 0 otherwise.
  std::int64_t phase = 0;
  bool completed = false;  ///< false when the run stopped inside it (OOM, failure, max_steps)
  /// TrainingConfig::max_steps ended the run in it (a pretraining phase's last epoch).
  bool reached_max_steps = false;
  std::int64_t batches = 0;
  std::int64_t samples = 0;  ///< data-parallel: every rank's
  std::int64_t optimizer_steps = 0;
  std::int64_t stall_ns = 0;    ///< sum over minibatches
  std::int64_t compute_ns = 0;  ///< sum over minibatches
  std::int64_t e2e_ns = 0;
  /// A paced run's time the host spent beyond the board's (fetches and minibatches that overran
  /// even the paced time, and the loop's own bookkeeping between minibatches, which the board's
  /// time model does not have): left out of stall, compute and e2e_ns, which are the board's.
  std::int64_t host_delay_ns = 0;
  /// Data-parallel: this rank's all-reduces, and every rank's figures in rank order.
  StepCommunication communication;
  std::vector<RankEpochFigures> ranks;
  std::optional<double> mean_loss;  ///< mean training loss of its minibatches
  /// TrainingConfig::keep_step_losses: each optimizer step's loss, the mean over its minibatches'
  /// samples (data-parallel: over every rank's), in order; read at the end of the epoch.
  std::vector<double> step_losses;
  std::optional<double> train_accuracy;  ///< on the training minibatches, as the seed code logs
  std::optional<double> eval_loss;
  std::optional<double> eval_accuracy;
  /// Entity-level scores on the evaluated split (token classification with eval_labels).
  std::optional<double> eval_entity_precision;
  std::optional<double> eval_entity_recall;
  std::optional<double> eval_entity_f1;
  /// SQuAD v1.1 exact match and F1 on the evaluated split, as fractions in [0, 1] (question
  /// answering with eval_squad).
  std::optional<double> eval_squad_exact_match;
  std::optional<double> eval_squad_f1;
  double samples_per_s() const { return e2e_ns > 0 ? samples * 1e9 / e2e_ns : 0.0; }
  /// The task's F1 on the evaluated split: entity F1 or SQuAD F1, whichever was measured.
  std::optional<double> eval_f1() const { return eval_entity_f1 ? eval_entity_f1 : eval_squad_f1; }
};

/// Epoch 0 apart; medians over the later epochs (absent with a single epoch).
struct EpochSummary {
  std::optional<EpochResult> first;
  std::optional<double> later_stall_ns_median;
  std::optional<double> later_compute_ns_median;
  std::optional<double> later_e2e_ns_median;
  std::optional<double> later_samples_per_s_median;
};

struct TrainingResult {
  RunStatus status = RunStatus::kOk;
  std::string error;  ///< set unless OK
  std::string model;
  Task task = Task::kImageClassification;
  std::int64_t parameters = 0;
  // Resolved settings.
  std::string device;
  std::string precision;
  std::string optimizer;
  double learning_rate = 0;
  double weight_decay = 0;
  /// The linear schedule's steps, when one ran.
  std::optional<std::int64_t> warmup_steps;
  std::optional<std::int64_t> schedule_steps;
  std::int64_t accumulate = 1;
  std::int64_t batch_size = 0;  ///< size of the first minibatch
  bool synchronized = true;     ///< false: async mode, per-batch stall/compute are host-side only
  std::uint64_t seed = 0;
  int threads = 0;
  std::optional<std::int64_t> max_batches;
  std::string eval_name;                      ///< TrainingConfig::eval_name; empty when nothing was evaluated
  std::optional<double> final_loss_scale;     ///< AMP fp16 only
  std::optional<std::int64_t> skipped_steps;  ///< AMP fp16 only: steps skipped for inf/NaN gradients
  std::vector<EpochResult> epochs;
  std::vector<MinibatchRecord> minibatches;
  MemoryPeaks memory;
  bool stopped_early = false;      ///< TrainingConfig::stop_after ended the run
  bool reached_max_steps = false;  ///< TrainingConfig::max_steps ended the run
  std::int64_t world_size = 1;     ///< ranks of a data-parallel run

  EpochSummary summary() const;
};

nlohmann::json to_json(const TrainingResult& result);

/// Trains `model` on `source`. Invalid settings throw std::invalid_argument before anything runs;
/// failures while running are recorded in the result's status.
TrainingResult train(Network& model, loaders::BatchSource& source, const TrainingConfig& config,
                     const sysfs::Root& root, std::string model_name = {});

struct EvalResult {
  std::int64_t samples = 0;
  double mean_loss = 0;
  double accuracy = 0;
  /// Token classification with `labels` only.
  std::optional<double> entity_precision;
  std::optional<double> entity_recall;
  std::optional<double> entity_f1;
  /// Question answering with a SQuAD data set only: fractions in [0, 1].
  std::optional<double> squad_exact_match;
  std::optional<double> squad_f1;
  std::int64_t squad_questions = 0;
};

/// No-grad pass over one epoch of `source` (eval mode; the module's mode is restored). `labels`
/// (label names by id) adds entity-level scores for token classification; `squad` (the data set
/// `source` yields in order) adds SQuAD EM and F1 for question answering.
EvalResult evaluate(Network& model, loaders::BatchSource& source, const torch::Device& device,
                    std::optional<std::int64_t> max_batches = {}, const std::vector<std::string>& labels = {},
                    const loaders::text::SquadDataset* squad = nullptr,
                    const loaders::text::SquadSpanOptions& squad_spans = {});

/// Moves a batch's tensors to `device` (non-blocking from pinned memory).
loaders::Batch to_device(const loaders::Batch& batch, const torch::Device& device);

}  // namespace jetchar::experiments
