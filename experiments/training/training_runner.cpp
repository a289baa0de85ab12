#include "experiments/training/training_runner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "experiments/torch_device.h"
#include "experiments/training/entity_scoring.h"
#include "experiments/training/grad_scaler.h"
#include "experiments/training/linear_schedule.h"
#include "experiments/training/out_of_memory.h"
#include "experiments/training/squad_scoring.h"
#include "results/epoch_medians.h"

namespace jetchar::experiments {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t elapsed_ns(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

double resolved_weight_decay(const TrainingConfig& config, OptimizerKind kind) {
  return config.weight_decay.value_or(kind == OptimizerKind::kSgd ? 0.0 : 0.01);
}

// AdamW's parameters as Hugging Face's Trainer groups them (transformers' Trainer.get_decay_parameter_names:
// every parameter decays except those of LayerNorm modules and those whose name holds "bias"); the
// fine-tuning write-ups train with it. A group is left out when it is empty (lenet5 has no LayerNorm).
std::vector<torch::optim::OptimizerParamGroup> adamw_parameter_groups(Network& model, double learning_rate,
                                                                      double weight_decay) {
  std::vector<torch::Tensor> decayed;
  std::vector<torch::Tensor> exempt;
  for (const auto& named_module : model.named_modules()) {
    const bool layer_norm = named_module.value()->as<torch::nn::LayerNorm>() != nullptr;
    for (const auto& parameter : named_module.value()->named_parameters(/*recurse=*/false)) {
      const bool bias = (named_module.key() + "." + parameter.key()).find("bias") != std::string::npos;
      (layer_norm || bias ? exempt : decayed).push_back(parameter.value());
    }
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (auto* tensors : {&decayed, &exempt}) {
    if (tensors->empty()) continue;
    const double decay = tensors == &decayed ? weight_decay : 0.0;
    groups.emplace_back(*tensors, std::make_unique<torch::optim::AdamWOptions>(
                                      torch::optim::AdamWOptions(learning_rate).weight_decay(decay)));
  }
  return groups;
}

std::unique_ptr<torch::optim::Optimizer> make_optimizer(Network& model, OptimizerKind kind, double learning_rate,
                                                        const TrainingConfig& config) {
  const double weight_decay = resolved_weight_decay(config, kind);
  if (kind == OptimizerKind::kSgd) {
    return std::make_unique<torch::optim::SGD>(
        model.parameters(),
        torch::optim::SGDOptions(learning_rate).momentum(config.momentum).weight_decay(weight_decay));
  }
  return std::make_unique<torch::optim::AdamW>(adamw_parameter_groups(model, learning_rate, weight_decay),
                                               torch::optim::AdamWOptions(learning_rate).weight_decay(weight_decay));
}

void validate(const TrainingConfig& config) {
  if (config.epochs < 1) throw std::invalid_argument(fmt::format("epochs {} must be at least 1", config.epochs));
  if (config.accumulate < 1) {
    throw std::invalid_argument(fmt::format("gradient accumulation {} must be at least 1", config.accumulate));
  }
  if (config.max_batches && *config.max_batches < 1) {
    throw std::invalid_argument(fmt::format("max batches {} must be at least 1", *config.max_batches));
  }
  if (config.max_steps && *config.max_steps < 1) {
    throw std::invalid_argument(fmt::format("max steps {} must be at least 1", *config.max_steps));
  }
  if (config.learning_rate && !(*config.learning_rate > 0)) {
    throw std::invalid_argument(fmt::format("learning rate {} must be positive", *config.learning_rate));
  }
  if (config.weight_decay && !(std::isfinite(*config.weight_decay) && *config.weight_decay >= 0)) {
    throw std::invalid_argument(
        fmt::format("weight decay {} is not valid; valid: a finite number >= 0", *config.weight_decay));
  }
  check_precision(config.precision, config.device);
}

// Drops every gradient so an OOM run gives its memory back before the caller goes on.
void release_gradients(Network& model) {
  for (auto& parameter : model.parameters()) parameter.mutable_grad() = torch::Tensor();
}

}  // namespace

std::string_view run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kOk: return "OK";
    case RunStatus::kOom: return "OOM";
    case RunStatus::kFailed: return "FAILED";
    case RunStatus::kInvalid: return "INVALID";
  }
  return "UNKNOWN";
}

std::string_view optimizer_name(OptimizerKind kind) { return kind == OptimizerKind::kSgd ? "sgd" : "adamw"; }

OptimizerKind parse_optimizer(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "sgd") return OptimizerKind::kSgd;
  if (lower == "adamw") return OptimizerKind::kAdamW;
  throw std::invalid_argument(fmt::format("optimizer '{}' is not valid; valid: sgd, adamw", text));
}

loaders::Batch to_device(const loaders::Batch& batch, const torch::Device& device) {
  auto move = [&](const torch::Tensor& tensor) {
    if (!tensor.defined() || tensor.device() == device) return tensor;
    return tensor.to(device, /*non_blocking=*/tensor.is_pinned());
  };
  loaders::Batch moved;
  moved.inputs = move(batch.inputs);
  moved.targets = move(batch.targets);
  moved.attention_mask = move(batch.attention_mask);
  moved.token_type_ids = move(batch.token_type_ids);
  moved.index = batch.index;
  return moved;
}

EpochSummary TrainingResult::summary() const {
  EpochSummary summary;
  std::vector<double> stall, compute, e2e, rate;
  for (const auto& epoch : epochs) {
    if (epoch.epoch == 0) {
      summary.first = epoch;
    } else if (epoch.completed) {
      stall.push_back(static_cast<double>(epoch.stall_ns));
      compute.push_back(static_cast<double>(epoch.compute_ns));
      e2e.push_back(static_cast<double>(epoch.e2e_ns));
      rate.push_back(epoch.samples_per_s());
    }
  }
  summary.later_stall_ns_median = results::median(stall);
  summary.later_compute_ns_median = results::median(compute);
  summary.later_e2e_ns_median = results::median(e2e);
  summary.later_samples_per_s_median = results::median(rate);
  return summary;
}

EvalResult evaluate(Network& model, loaders::BatchSource& source, const torch::Device& device,
                    std::optional<std::int64_t> max_batches, const std::vector<std::string>& labels,
                    const loaders::text::SquadDataset* squad, const loaders::text::SquadSpanOptions& squad_spans) {
  torch::NoGradGuard no_grad;
  const bool entities = model.task() == Task::kTokenClassification && !labels.empty();
  loaders::text::EntityEvaluator entity_evaluator;
  std::optional<loaders::text::SquadPredictions> answers;
  if (model.task() == Task::kQuestionAnswering && squad != nullptr) answers.emplace(*squad, squad_spans);
  std::optional<std::int64_t> batch_rows;  // the first batch's size: every batch but the last has it
  const bool was_training = model.is_training();
  model.eval();
  source.start_epoch(0);
  double loss_sum = 0;
  std::int64_t correct = 0, scored = 0, samples = 0, batches = 0;
  while (!max_batches || batches < *max_batches) {
    auto next = source.next();
    if (!next) break;
    auto batch = to_device(*next, device);
    auto logits = model.forward_batch(batch);
    const auto count = batch.inputs.size(0);
    loss_sum += task_loss(model.task(), logits, batch).item<double>() * static_cast<double>(count);
    auto score = task_score(model.task(), logits, batch);
    if (entities) add_entity_predictions(entity_evaluator, logits, batch.targets, labels);
    if (answers) {
      if (!batch_rows) batch_rows = count;
      add_squad_logits(*answers, logits, batch.index * *batch_rows);
    }
    correct += score.correct;
    scored += score.total;
    samples += count;
    ++batches;
  }
  model.train(was_training);
  EvalResult result;
  result.samples = samples;
  result.mean_loss = samples > 0 ? loss_sum / static_cast<double>(samples) : 0.0;
  result.accuracy = scored > 0 ? static_cast<double>(correct) / static_cast<double>(scored) : 0.0;
  if (entities) {
    const auto& overall = entity_evaluator.scores().overall;
    result.entity_precision = overall.precision();
    result.entity_recall = overall.recall();
    result.entity_f1 = overall.f1();
  }
  if (answers) {
    const auto scores = answers->scores();
    result.squad_exact_match = scores.exact_match / 100;
    result.squad_f1 = scores.f1 / 100;
    result.squad_questions = scores.questions;
  }
  return result;
}

namespace {

// The run's settings as resolved, before any epoch.
TrainingResult describe_training(Network& model, const TrainingConfig& config, OptimizerKind optimizer_kind,
                                 double learning_rate, std::string model_name) {
  TrainingResult result;
  result.model = std::move(model_name);
  result.task = model.task();
  result.parameters = parameter_count(model);
  result.device = config.device.str();
  result.precision = resolved_precision(config.precision, config.device);
  result.optimizer = std::string(optimizer_name(optimizer_kind));
  result.learning_rate = learning_rate;
  result.weight_decay = resolved_weight_decay(config, optimizer_kind);
  result.accumulate = config.accumulate;
  result.synchronized = config.sync_per_batch;
  result.seed = config.seed;
  result.threads = torch::get_num_threads();
  result.max_batches = config.max_batches;
  if (config.eval_source != nullptr) result.eval_name = config.eval_name;
  return result;
}

// The minibatches an epoch runs: the source's, cut at max_batches.
std::int64_t planned_batches(const TrainingConfig& config, const loaders::BatchSource& source) {
  return config.max_batches ? std::min(*config.max_batches, source.batches_per_epoch()) : source.batches_per_epoch();
}

// The optimizer with its learning-rate schedule and loss scaler: what an optimizer step needs.
class OptimizerStep {
 public:
  OptimizerStep(Network& model, OptimizerKind kind, double learning_rate, const TrainingConfig& config,
                const loaders::BatchSource& source)
      : optimizer_(make_optimizer(model, kind, learning_rate, config)),
        learning_rate_(learning_rate),
        scaled_(config.precision == Precision::kAmpFp16),
        parameters_(model.parameters()) {
    if (config.warmup_proportion) {
      const std::int64_t steps_per_epoch =
          (planned_batches(config, source) + config.accumulate - 1) / config.accumulate;
      auto steps = steps_per_epoch * config.epochs;
      if (config.max_steps) steps = std::min(steps, *config.max_steps);
      schedule_ = LinearSchedule::from_proportion(*config.warmup_proportion, std::max<std::int64_t>(1, steps));
    }
  }

  const std::optional<LinearSchedule>& schedule() const { return schedule_; }
  bool scaled() const { return scaled_; }
  const GradScaler& scaler() const { return scaler_; }

  void zero_grad() { optimizer_->zero_grad(); }
  /// Backward of `loss` (scaled for FP16 autocast).
  void backward(const torch::Tensor& loss) { (scaled_ ? scaler_.scale(loss) : loss).backward(); }
  /// One optimizer step at the schedule's learning rate; with FP16 loss scaling, skipped when a
  /// gradient is not finite.
  void step() {
    if (schedule_) {
      for (auto& group : optimizer_->param_groups())
        group.options().set_lr(learning_rate_ * schedule_->factor(steps_taken_));
      ++steps_taken_;
    }
    if (scaled_) {
      const bool finite = scaler_.unscale(parameters_);
      if (finite) optimizer_->step();
      scaler_.update(finite);
    } else {
      optimizer_->step();
    }
  }

 private:
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  double learning_rate_;
  std::optional<LinearSchedule> schedule_;
  std::int64_t steps_taken_ = 0;
  bool scaled_;
  GradScaler scaler_;
  std::vector<torch::Tensor> parameters_;
};

// An epoch's loss and scores, summed on the device: read once at the end of the epoch, since
// reading each minibatch's would sync.
struct EpochSums {
  explicit EpochSums(const torch::Device& device)
      : loss(torch::zeros({}, torch::TensorOptions().device(device))),
        correct(torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device))),
        scored(torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device))) {}
  torch::Tensor loss, correct, scored;
  std::vector<torch::Tensor> minibatch_losses;  ///< kept records' losses, in order
  std::vector<torch::Tensor> step_losses;       ///< TrainingConfig::keep_step_losses: each step's mean loss
};

// The loss of the optimizer step being accumulated: its minibatches' losses weighted by samples.
struct StepLoss {
  torch::Tensor sum;
  std::int64_t samples = 0;

  void add(const torch::Tensor& loss, std::int64_t count) {
    const auto weighted = loss * static_cast<double>(count);
    sum = sum.defined() ? sum + weighted : weighted;
    samples += count;
  }
  torch::Tensor take() {
    auto mean = sum / static_cast<double>(samples);
    sum = torch::Tensor();
    samples = 0;
    return mean;
  }
};

// A data-parallel epoch: its loss and score sums and its samples become the world's, each kept
// minibatch's loss the mean over the ranks (the loss of the global minibatch), and every rank's
// times and communication are gathered in rank order.
void share_epoch(DataParallel& dp, EpochSums& sums, EpochResult& epoch) {
  const auto own = epoch;
  auto samples = torch::full({}, static_cast<double>(own.samples), torch::kFloat64).to(sums.loss.device());
  std::vector<torch::Tensor> totals{sums.loss, sums.correct, sums.scored, samples};
  for (const auto* losses : {&sums.minibatch_losses, &sums.step_losses}) {
    if (!losses->empty()) totals.push_back(torch::stack(*losses));
  }
  dp.sum(totals);
  epoch.samples = static_cast<std::int64_t>(std::llround(totals[3].item<double>()));
  // Each kept loss becomes the mean over the ranks: every rank took the same minibatches and steps.
  std::size_t next = 4;
  for (auto* losses : {&sums.minibatch_losses, &sums.step_losses}) {
    if (losses->empty()) continue;
    const auto means = totals[next++] / static_cast<double>(dp.world_size());
    for (std::size_t i = 0; i < losses->size(); ++i) (*losses)[i] = means[static_cast<std::int64_t>(i)];
  }
  const std::vector<double> row{static_cast<double>(own.samples),
                                static_cast<double>(own.stall_ns),
                                static_cast<double>(own.compute_ns),
                                static_cast<double>(own.e2e_ns),
                                static_cast<double>(own.communication.allreduce_ns),
                                static_cast<double>(own.communication.exposed_ns),
                                static_cast<double>(own.communication.bytes)};
  const auto rows = dp.gather(torch::tensor(row, torch::kFloat64)).to(torch::kCPU);
  for (std::int64_t r = 0; r < rows.size(0); ++r) {
    const auto value = [&rows, r](std::int64_t column) {
      return static_cast<std::int64_t>(rows[r][column].item<double>());
    };
    epoch.ranks.push_back({r, value(0), value(1), value(2), value(3), {value(4), value(5), value(6)}});
  }
}

// The epoch's mean loss and accuracy, and each kept minibatch record's loss, from the device sums.
void read_epoch_sums(const EpochSums& sums, std::size_t first_record, EpochResult& epoch, TrainingResult& result) {
  if (epoch.samples > 0) {
    epoch.mean_loss = sums.loss.item<double>() / static_cast<double>(epoch.samples);
    const auto scored = sums.scored.item<std::int64_t>();
    if (scored > 0) epoch.train_accuracy = static_cast<double>(sums.correct.item<std::int64_t>()) / scored;
  }
  for (std::size_t i = 0; i < sums.minibatch_losses.size(); ++i) {
    result.minibatches[first_record + i].loss = sums.minibatch_losses[i].item<double>();
  }
  if (!sums.step_losses.empty()) {
    const auto losses = torch::stack(sums.step_losses).to(torch::kCPU, torch::kFloat64).contiguous();
    epoch.step_losses.assign(losses.data_ptr<double>(), losses.data_ptr<double>() + losses.numel());
  }
}

// One epoch: each minibatch timed as fetch stall (waiting for it, including the copy to the
// device) and compute (zero_grad .. optimizer step, ended by a synchronize when sync_per_batch),
// and the whole epoch loop as e2e. Sets result.stopped_early when config.stop_after says so.
void train_epoch(Network& model, loaders::BatchSource& source, const TrainingConfig& config, OptimizerStep& optimizer,
                 std::int64_t epoch, TrainingResult& result) {
  EpochResult& current = result.epochs.emplace_back();
  current.epoch = epoch;
  source.start_epoch(epoch);
  const std::int64_t planned = planned_batches(config, source);
  EpochSums sums(config.device);
  StepLoss step_loss;
  const std::size_t first_record = result.minibatches.size();
  const bool sync = config.sync_per_batch;
  DataParallel* dp = config.data_parallel;
  std::int64_t steps_before = 0;  // the run's optimizer steps before this epoch
  for (std::size_t i = 0; i + 1 < result.epochs.size(); ++i) steps_before += result.epochs[i].optimizer_steps;
  bool cut = false;         // max_steps reached before the epoch's planned end
  bool stop_asked = false;  // data-parallel: this rank's request to stop, sent with the next step

  synchronize(config.device);
  const auto epoch_start = Clock::now();
  auto fetch_start = epoch_start;
  for (std::int64_t index = 0; index < planned; ++index) {
    auto next = source.next();
    if (!next) break;
    auto batch = to_device(*next, config.device);
    next.reset();
    if (sync) synchronize(config.device);
    auto fetch_end = Clock::now();
    auto compute_start = fetch_end;
    if (config.pace_fetch) {
      // The board's stall ends at fetch_end; the host's loader or its wake-up may run past it.
      fetch_end = config.pace_fetch(fetch_start, index, batch.inputs.size(0));
      compute_start = Clock::now();
      if (compute_start > fetch_end) current.host_delay_ns += elapsed_ns(fetch_end, compute_start);
    }

    if (index % config.accumulate == 0) optimizer.zero_grad();
    torch::Tensor logits, loss;
    {
      AutocastScope autocast(config.precision, config.device);
      logits = model.forward_batch(batch);
      loss = task_loss(model.task(), logits, batch);
    }
    // Step after every `accumulate` minibatches, and after the epoch's last one; data-parallel
    // ranks all-reduce the gradients during that step's backward only (DDP's no_sync for the rest).
    const bool step_now = (index + 1) % config.accumulate == 0 || index + 1 == planned;
    if (dp != nullptr && step_now) dp->arm(stop_asked);
    optimizer.backward(config.accumulate > 1 ? loss / static_cast<double>(config.accumulate) : loss);
    if (config.keep_step_losses) step_loss.add(loss.detach().to(torch::kFloat), batch.inputs.size(0));
    if (step_now) {
      if (dp != nullptr) current.communication += dp->finish();
      optimizer.step();
      ++current.optimizer_steps;
      if (config.keep_step_losses) sums.step_losses.push_back(step_loss.take());
    }
    if (sync) synchronize(config.device);
    const auto compute_end =
        config.pace_compute ? config.pace_compute(compute_start, batch.inputs.size(0)) : Clock::now();
    if (const auto host_end = Clock::now(); host_end > compute_end) {
      current.host_delay_ns += elapsed_ns(compute_end, host_end);
    }

    const auto samples = batch.inputs.size(0);
    if (result.batch_size == 0) result.batch_size = samples;
    sums.loss += loss.detach().to(torch::kFloat) * static_cast<double>(samples);
    auto score = task_score_tensors(model.task(), logits.detach(), batch);
    sums.correct += score.correct;
    sums.scored += score.total;
    const auto stall_ns = elapsed_ns(fetch_start, fetch_end);
    const auto compute_ns = elapsed_ns(compute_start, compute_end);
    current.stall_ns += stall_ns;
    current.compute_ns += compute_ns;
    current.samples += samples;
    ++current.batches;
    if (config.keep_minibatch_records) {
      const auto start_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(fetch_start.time_since_epoch()).count();
      result.minibatches.push_back({epoch, index, samples, start_ns, stall_ns, compute_ns, std::nullopt});
      sums.minibatch_losses.push_back(loss.detach().to(torch::kFloat));
    }
    const TrainingProgress progress{epoch, index + 1, planned, stall_ns, compute_ns};
    if (config.on_batch) config.on_batch(progress);
    bool stop = config.stop_after && config.stop_after(progress);
    if (dp != nullptr) {
      // Every rank ends at the same minibatch: the one whose step carried some rank's request.
      stop_asked = stop_asked || stop;
      stop = step_now && dp->world_stops();
    }
    if (stop) {
      result.stopped_early = true;
      break;
    }
    if (config.max_steps && steps_before + current.optimizer_steps >= *config.max_steps) {
      result.reached_max_steps = true;
      current.reached_max_steps = true;
      cut = index + 1 < planned;
      break;
    }
    // The next fetch stall starts here: bookkeeping above counts as neither stall nor compute.
    fetch_start = Clock::now();
  }
  synchronize(config.device);
  const auto wall_ns = elapsed_ns(epoch_start, Clock::now());
  if (config.pace_compute) {
    // A paced epoch (a simulated board) is its minibatches' board time: the time model has no
    // bookkeeping between them, so the host's, like its overruns, is the host's delay.
    current.e2e_ns = current.stall_ns + current.compute_ns;
    current.host_delay_ns = wall_ns - current.e2e_ns;
  } else {
    current.e2e_ns = wall_ns - current.host_delay_ns;
  }
  if (config.on_epoch_end) config.on_epoch_end();
  current.completed = !result.stopped_early && !cut;
  // A request that no step carried (asked after the epoch's last step) ends the run with the epoch.
  if (dp != nullptr && !result.stopped_early && dp->any(stop_asked)) result.stopped_early = true;
  if (dp != nullptr) share_epoch(*dp, sums, current);
  read_epoch_sums(sums, first_record, current, result);
}

void record_evaluation(const EvalResult& eval, EpochResult& epoch) {
  epoch.eval_loss = eval.mean_loss;
  epoch.eval_accuracy = eval.accuracy;
  epoch.eval_entity_precision = eval.entity_precision;
  epoch.eval_entity_recall = eval.entity_recall;
  epoch.eval_entity_f1 = eval.entity_f1;
  epoch.eval_squad_exact_match = eval.squad_exact_match;
  epoch.eval_squad_f1 = eval.squad_f1;
}

}  // namespace

TrainingResult train(Network& model, loaders::BatchSource& source, const TrainingConfig& config,
                     const sysfs::Root& root, std::string model_name) {
  validate(config);
  const bool token_task = model.task() != Task::kImageClassification;
  const auto optimizer_kind = config.optimizer.value_or(token_task ? OptimizerKind::kAdamW : OptimizerKind::kSgd);
  const double learning_rate = config.learning_rate.value_or(optimizer_kind == OptimizerKind::kSgd ? 0.01 : 5e-5);
  TrainingResult result = describe_training(model, config, optimizer_kind, learning_rate, std::move(model_name));

  torch::manual_seed(config.seed);  // seeds the CPU and every CUDA generator
  model.to(config.device);
  model.train();
  if (config.data_parallel != nullptr) {
    result.world_size = config.data_parallel->world_size();
    config.data_parallel->attach(model);
  }
  OptimizerStep optimizer(model, optimizer_kind, learning_rate, config, source);
  if (optimizer.schedule()) {
    result.warmup_steps = optimizer.schedule()->warmup_steps;
    result.schedule_steps = optimizer.schedule()->total_steps;
  }
  Tf32Scope tf32(config.precision == Precision::kTf32);
  MemoryMonitor monitor(root, config.device);
  try {
    for (std::int64_t epoch = 0; epoch < config.epochs; ++epoch) {
      train_epoch(model, source, config, optimizer, epoch, result);
      monitor.sample();
      if (config.eval_source != nullptr) {
        record_evaluation(evaluate(model, *config.eval_source, config.device, std::nullopt, config.eval_labels,
                                   config.eval_squad, config.eval_squad_spans),
                          result.epochs.back());
      }
      if (config.on_epoch_done) config.on_epoch_done(result.epochs.back());
      if (result.stopped_early || result.reached_max_steps) break;
    }
  } catch (const std::exception& error) {
    result.status = is_out_of_memory(error) ? RunStatus::kOom : RunStatus::kFailed;
    result.error = run_error_text(error.what(), config.precision, config.device);
    release_gradients(model);
    release_cached_memory(config.device);
  }
  if (optimizer.scaled()) {
    result.final_loss_scale = optimizer.scaler().scale_value();
    result.skipped_steps = optimizer.scaler().skipped_steps();
  }
  result.memory = monitor.stop();
  return result;
}

nlohmann::json to_json(const TrainingResult& result) {
  auto optional = [](const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  auto epoch_json = [&](const EpochResult& epoch) {
    auto json = nlohmann::json{{"epoch", epoch.epoch},
                               {"completed", epoch.completed},
                               {"batches", epoch.batches},
                               {"samples", epoch.samples},
                               {"optimizer_steps", epoch.optimizer_steps},
                               {"stall_ns", epoch.stall_ns},
                               {"compute_ns", epoch.compute_ns},
                               {"e2e_ns", epoch.e2e_ns},
                               {"allreduce_ns", epoch.communication.allreduce_ns},
                               {"exposed_communication_ns", epoch.communication.exposed_ns},
                               {"allreduce_bytes", epoch.communication.bytes},
                               {"samples_per_s", epoch.samples_per_s()},
                               {"mean_loss", optional(epoch.mean_loss)},
                               {"train_accuracy", optional(epoch.train_accuracy)},
                               {"eval_loss", optional(epoch.eval_loss)},
                               {"eval_accuracy", optional(epoch.eval_accuracy)},
                               {"eval_entity_precision", optional(epoch.eval_entity_precision)},
                               {"eval_entity_recall", optional(epoch.eval_entity_recall)},
                               {"eval_entity_f1", optional(epoch.eval_entity_f1)},
                               {"eval_squad_exact_match", optional(epoch.eval_squad_exact_match)},
                               {"eval_squad_f1", optional(epoch.eval_squad_f1)}};
    if (epoch.phase > 0) json["phase"] = epoch.phase;
    if (!epoch.step_losses.empty()) json["step_losses"] = epoch.step_losses;
    return json;
  };
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& epoch : result.epochs) epochs.push_back(epoch_json(epoch));
  const auto summary = result.summary();
  nlohmann::json minibatches = nlohmann::json::array();
  for (const auto& record : result.minibatches) {
    minibatches.push_back({{"epoch", record.epoch},
                           {"index", record.index},
                           {"samples", record.samples},
                           {"stall_ns", record.stall_ns},
                           {"compute_ns", record.compute_ns},
                           {"loss", optional(record.loss)}});
  }
  return {
      {"status", run_status_name(result.status)},
      {"error", result.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.error)},
      {"model", result.model},
      {"task", task_name(result.task)},
      {"parameters", result.parameters},
      {"settings",
       {{"device", result.device},
        {"precision", result.precision},
        {"optimizer", result.optimizer},
        {"learning_rate", result.learning_rate},
        {"weight_decay", result.weight_decay},
        {"batch_size", result.batch_size},
        {"accumulate", result.accumulate},
        {"warmup_steps", result.warmup_steps ? nlohmann::json(*result.warmup_steps) : nlohmann::json(nullptr)},
        {"schedule_steps", result.schedule_steps ? nlohmann::json(*result.schedule_steps) : nlohmann::json(nullptr)},
        {"total_batch", result.batch_size * result.accumulate},
        {"timing", result.synchronized ? "synchronized per minibatch" : "async (no per-minibatch sync)"},
        {"synchronized", result.synchronized},
        {"seed", result.seed},
        {"world_size", result.world_size},
        {"threads", result.threads},
        {"max_batches", optional(result.max_batches)},
        {"eval", result.eval_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(result.eval_name)},
        {"final_loss_scale", optional(result.final_loss_scale)},
        {"skipped_steps", optional(result.skipped_steps)}}},
      {"epochs", epochs},
      {"epoch0", summary.first ? epoch_json(*summary.first) : nlohmann::json(nullptr)},
      {"later_epochs_median",
       {{"stall_ns", optional(summary.later_stall_ns_median)},
        {"compute_ns", optional(summary.later_compute_ns_median)},
        {"e2e_ns", optional(summary.later_e2e_ns_median)},
        {"samples_per_s", optional(summary.later_samples_per_s_median)}}},
      {"minibatches", minibatches},
      {"stopped_early", result.stopped_early},
      {"memory", to_json(result.memory)}};
}

}  // namespace jetchar::experiments
