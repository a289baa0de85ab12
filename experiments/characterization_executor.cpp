#include "experiments/characterization_executor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <optional>
#include <thread>

#include "experiments/adaptive_stop.h"
#include "experiments/checkpoints/checkpoint_digest.h"
#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/checkpoints/pretrained_vocab.h"
#include "experiments/compute_threads.h"
#include "experiments/cuda_context.h"
#include "experiments/device_spec.h"
#include "experiments/dilated_time.h"
#include "experiments/distributed/mode_agreement.h"
#include "experiments/distributed/node_ranks.h"
#include "experiments/distributed/node_reports.h"
#include "experiments/distributed/world_energy.h"
#include "experiments/epoch_instrumented_source.h"
#include "experiments/fetch_work.h"
#include "experiments/inference/inference_dataset.h"
#include "experiments/inference/inference_runner.h"
#include "experiments/inference/query_energy.h"
#include "experiments/inference/query_inputs.h"
#include "experiments/meter_records.h"
#include "experiments/mode_readback.h"
#include "experiments/models/model_work.h"
#include "experiments/models/registry.h"
#include "experiments/run_settings.h"
#include "experiments/target_outcome.h"
#include "experiments/torch_device.h"
#include "experiments/training/precision.h"
#include "experiments/training/training_runner.h"
#include "experiments/training/validation_split.h"
#include "experiments/training_phases.h"
#include "experiments/training_workload.h"
#include "jetchar/version.h"
#include "jetson/control/power_mode.h"
#include "jetson/discovery/device_identity.h"
#include "jetson/discovery/thermal.h"
#include "jetson/measurement/measurement_session.h"
#include "jetson/telemetry/gpio_marker.h"
#include "loaders/data_path.h"
#include "loaders/dataset_spec.h"
#include "loaders/pipeline.h"

namespace jetchar::experiments {
namespace {

namespace energy = jetson::energy;

constexpr std::uint32_t kSchemaVersion = 1;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void set_failure(proto::RunResult& result, proto::RunStatus status, const std::string& reason) {
  result.set_status(status);
  result.set_reason(reason);
}

void add_note(proto::RunResult& result, const std::string& note) {
  result.set_reason(result.reason().empty() ? note : result.reason() + "; " + note);
}

// Energy of a closed window into an epoch record (absent stays absent).
void fill_energy(const energy::WindowEnergy& window, proto::EpochResult& epoch) {
  for (const auto& rail : window.rails) {
    if (!rail.energy.energy_mj) continue;
    auto* r = epoch.add_rails();
    r->set_rail(rail.name);
    r->set_energy_j(*rail.energy.energy_mj / 1000.0);
    if (rail.mean_power_mw) r->set_average_power_w(*rail.mean_power_mw / 1000.0);
  }
  if (window.total_energy_mj) {
    epoch.set_energy_j(*window.total_energy_mj / 1000.0);
    if (window.duration_ns > 0) epoch.set_average_power_w(*window.total_energy_mj / (window.duration_ns / 1e6));
  }
  if (window.incremental_energy_mj) epoch.set_incremental_energy_j(*window.incremental_energy_mj / 1000.0);
  if (window.joules_per_sample) epoch.set_energy_per_sample_j(*window.joules_per_sample);
}

void fill_memory(const MemoryPeaks& peaks, proto::MemoryPeaks& out) {
  if (peaks.peak_rss_kib) out.set_peak_rss_bytes(*peaks.peak_rss_kib * 1024);
  if (peaks.min_mem_available_kib) out.set_min_mem_available_bytes(*peaks.min_mem_available_kib * 1024);
  if (peaks.cuda_peak_allocated_bytes) out.set_cuda_peak_allocated_bytes(*peaks.cuda_peak_allocated_bytes);
  if (peaks.cuda_peak_reserved_bytes) out.set_cuda_peak_reserved_bytes(*peaks.cuda_peak_reserved_bytes);
}

// The run's GPIO phase marker: the real line when the board has the chip, a fake one (toggles
// recorded only) on a simulated board, none when the spec names no line.
std::unique_ptr<jetson::PhaseMarker> open_marker(const proto::MeasurementSpec& measurement,
                                                 const jetson::BoardHandle& board) {
  if (!measurement.has_gpio_marker_line()) return nullptr;
  const std::string chip = measurement.gpio_chip().empty() ? "gpiochip0" : measurement.gpio_chip();
  if (jetson::gpio_chip_present(*board.root, chip)) {
    return std::make_unique<jetson::GpiodPhaseMarker>(*board.root, chip, measurement.gpio_marker_line());
  }
  if (board.hooks->marks_without_gpio()) return std::make_unique<jetson::FakePhaseMarker>();
  throw std::invalid_argument(fmt::format("measurement.gpio_chip '{}': no /dev/{} on this board", chip, chip));
}

void record_marker(const jetson::PhaseMarker& marker, proto::RunResult& result) {
  auto* m = result.mutable_marker();
  m->set_line(marker.describe());
  for (const auto& toggle : marker.toggles()) {
    m->set_toggles(m->toggles() + 1);
    if (!toggle.ok) m->set_failed(m->failed() + 1);
  }
  result.mutable_context()->set_gpio_marker(marker.describe());
  if (m->failed() > 0)
    add_note(result, fmt::format("GPIO marker: {} of {} edges could not be driven", m->failed(), m->toggles()));
}

// A paced run's modelled time (jetson/discovery/board_hooks.h): context.time_model, ModelledTime,
// and a note when the host was slower than the model on some minibatches.
// A phased run records each phase's in turn (`note_prefix` names it): the minibatch counts add
// up, the per-minibatch figures are the first phase's.
void record_paced_time(const jetson::PacedTime& paced, proto::RunResult& result, const std::string& note_prefix = {}) {
  result.mutable_context()->set_time_model(paced.time_model);
  auto* m = result.mutable_modelled_time();
  if (m->paced_minibatches() + m->host_slower_minibatches() == 0) {
    m->set_minibatch_compute_s(paced.minibatch_compute_s);
    m->set_minibatch_stall_s(paced.minibatch_stall_s);
    m->set_cpu_busy(paced.cpu_busy);
    m->set_gpu_busy(paced.gpu_busy);
  }
  m->set_paced_minibatches(m->paced_minibatches() + paced.paced);
  m->set_host_slower_minibatches(m->host_slower_minibatches() + paced.host_slower);
  if (paced.dilation > 1) {
    add_note(result,
             note_prefix + fmt::format("time model: this host computes slower than the modelled board: each minibatch "
                                       "was paced to {:.2f}x its modelled time and the run's times and energies are "
                                       "divided by {:.2f} (MODELLED)",
                                       paced.dilation, paced.dilation));
  }
  if (paced.host_slower > 0) {
    add_note(result, note_prefix + fmt::format("time model: this host overran the paced time on {} of {} minibatches "
                                               "(their time is the board's; the host's delay is left out)",
                                               paced.host_slower, paced.host_slower + paced.paced));
  }
}

// The shape of one query's sample: the data set's collated inputs', else the synthetic ones'.
std::vector<std::int64_t> query_sample_shape(const ModelSpec& spec, const InferenceConfig& config) {
  if (config.inputs != nullptr && !config.inputs->batches.empty()) {
    const auto sizes = config.inputs->batches.front().inputs.sizes();
    return {sizes.begin() + 1, sizes.end()};
  }
  if (spec.token_input()) return {config.sequence_length.value_or(spec.default_input.at(0))};
  return spec.default_input;
}

// The run's measurement session: the onboard sampler at the spec's rate and its meters, never
// cross-correlated with modelled power.
jetson::measurement::MeasurementOptions measurement_options(const proto::MeasurementSpec& measurement,
                                                            const jetson::BoardHandle& board) {
  jetson::measurement::MeasurementOptions options;
  options.sample_rate_hz = measurement.sample_rate_hz();
  options.meters = meter_specs(measurement.meters());
  options.onboard_modelled = board.hooks->power_modelled();
  return options;
}

// The run's meters over the whole run; a gap is a note, not a failure (meter_session.h says why).
void record_meters(const jetson::measurement::MeterSession& meters, const jetson::energy::Window& run_window,
                   proto::RunResult& result) {
  for (auto& summary :
       meter_summary_records(meters, run_window.begin_ns, run_window.end_ns.value_or(run_window.begin_ns))) {
    if (summary.readings() == 0) {
      add_note(result, fmt::format("meter {}: no readings{}", summary.meter(),
                                   summary.last_error().empty() ? "" : " (" + summary.last_error() + ")"));
    } else if (summary.gap_count() > 0) {
      add_note(result,
               fmt::format("meter {}: {} gap(s), {:.2f} s without data{}", summary.meter(), summary.gap_count(),
                           summary.gap_s(), summary.last_error().empty() ? "" : " (" + summary.last_error() + ")"));
    }
    *result.add_meters() = std::move(summary);
  }
}

// What the stopping rule saw; a run that ran to its planned end says so in its reason.
void record_adaptive(const AdaptiveStop& adaptive, bool stopped_early, proto::RunResult& result) {
  auto* a = result.mutable_adaptive();
  a->set_stopped_early(stopped_early);
  a->set_minibatches(static_cast<std::uint32_t>(adaptive.minibatches()));
  a->set_basis(adaptive.basis());
  if (const auto& t = adaptive.time_interval()) {
    a->set_time_relative_half_width(t->relative_half_width());
    a->set_batch_means(static_cast<std::uint32_t>(t->batches));
  }
  if (const auto& p = adaptive.power_interval()) a->set_power_relative_half_width(p->relative_half_width());
  if (stopped_early) {
    result.set_adaptive_minibatches(static_cast<std::uint32_t>(adaptive.minibatches()));
  } else {
    add_note(result, fmt::format("adaptive stopping: not settled after {} minibatches ({} judged)",
                                 adaptive.minibatches(), adaptive.basis()));
  }
  if (!adaptive.judges_power()) add_note(result, "adaptive stopping judged time only: the board has no power channel");
}

proto::RunStatus to_proto(RunStatus status) {
  switch (status) {
    case RunStatus::kOk: return proto::OK;
    case RunStatus::kOom: return proto::OOM;
    case RunStatus::kInvalid: return proto::INVALID;
    case RunStatus::kFailed: break;
  }
  return proto::FAILED;
}

// A trace's samples for the store: every valid channel value of the samples inside the run window
// and of the one on either side, which the window's energy interpolates from; t_s counts from the
// window's start.
void append_stored_samples(const energy::PowerTrace& trace, const energy::Window& run,
                           std::vector<results::StoredPowerSample>& samples) {
  const auto& times = trace.times_ns();
  const auto after_begin = std::upper_bound(times.begin(), times.end(), run.begin_ns);
  const auto after_end = std::upper_bound(after_begin, times.end(), run.end_ns.value_or(run.begin_ns));
  const auto first = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, after_begin - times.begin() - 1));
  const auto last = std::min(trace.size(), static_cast<std::size_t>(after_end - times.begin()) + 1);
  samples.reserve(samples.size() + (last - first) * trace.channel_count());
  for (std::size_t i = first; i < last; ++i) {
    const double t_s = static_cast<double>(times[i] - run.begin_ns) / 1e9;
    for (std::size_t c = 0; c < trace.channel_count(); ++c) {
      if (const auto mw = trace.power_mw(c, i)) samples.push_back({t_s, trace.channel(c).name, *mw / 1000.0});
    }
  }
}

// The run's power samples for the store (measurement.power_samples): the onboard rails, then each
// external meter as its own channel, all on the onboard clock.
std::vector<results::StoredPowerSample> stored_samples(const energy::PowerTrace& onboard,
                                                       const jetson::measurement::MeterSession& meters,
                                                       const energy::Window& run) {
  std::vector<results::StoredPowerSample> samples;
  append_stored_samples(onboard, run, samples);
  for (const auto* meter : meter_traces(meters)) append_stored_samples(*meter, run, samples);
  return samples;
}

// The INA3221 conversion settings (samples averaged, update interval) the run's samples come from.
void record_power_monitor_settings(jetson::measurement::PowerSession& power, proto::RunResult& result) {
  for (const auto& s : power.sampler().power_monitor_settings()) {
    if (s.samples) result.mutable_context()->set_ina3221_samples(static_cast<std::uint32_t>(*s.samples));
    if (s.update_interval_ms) result.mutable_context()->set_ina3221_update_interval_ms(*s.update_interval_ms);
  }
}

// Each trained epoch's times and, where its window was recorded, its start in the run, onboard
// and meter energies and data-path figures.
void record_epochs(const std::vector<EpochResult>& epochs, const std::vector<InstrumentedEpoch>& recorded,
                   jetson::measurement::PowerSession& power, const jetson::measurement::MeterSession& meters,
                   std::size_t run_window, const energy::Baseload* baseload, proto::RunResult& result) {
  for (std::size_t i = 0; i < epochs.size(); ++i) {
    const auto& t = epochs[i];
    auto* e = result.add_epochs();
    e->set_epoch(static_cast<std::uint32_t>(t.epoch));
    e->set_stall_s(t.stall_ns / 1e9);
    e->set_compute_s(t.compute_ns / 1e9);
    e->set_e2e_s(t.e2e_ns / 1e9);
    e->set_samples(static_cast<std::uint64_t>(t.samples));
    e->set_minibatches(static_cast<std::uint64_t>(t.batches));
    if (t.mean_loss) e->set_loss(*t.mean_loss);
    if (t.train_accuracy) e->set_accuracy(*t.train_accuracy);
    if (t.eval_loss) e->set_eval_loss(*t.eval_loss);
    if (t.eval_accuracy) e->set_eval_accuracy(*t.eval_accuracy);
    if (t.eval_entity_precision) e->set_eval_entity_precision(*t.eval_entity_precision);
    if (t.eval_entity_recall) e->set_eval_entity_recall(*t.eval_entity_recall);
    if (t.eval_entity_f1) e->set_eval_entity_f1(*t.eval_entity_f1);
    if (t.eval_squad_exact_match) e->set_eval_exact_match(*t.eval_squad_exact_match);
    if (t.eval_squad_f1) e->set_eval_squad_f1(*t.eval_squad_f1);
    if (i < recorded.size()) {
      const auto& window = power.windows().windows()[recorded[i].window];
      e->set_start_s(static_cast<double>(window.begin_ns - power.windows().windows()[run_window].begin_ns) / 1e9);
      if (power.has_power()) fill_energy(power.energy(window, baseload), *e);
      if (window.end_ns) {
        for (auto& meter : meter_energy_records(meters, window.begin_ns, *window.end_ns))
          *e->add_meters() = std::move(meter);
      }
      // A paced epoch's window holds the host's delay past the board's minibatches; its E2E does not.
      if (t.host_delay_ns > 0) {
        scale_epoch_energy(*e, static_cast<double>(t.e2e_ns) / static_cast<double>(t.e2e_ns + t.host_delay_ns));
      }
      if (const auto& dp = recorded[i].stats.data_path) {
        if (dp->residency_before) e->set_residency_before(*dp->residency_before);
        if (dp->residency_after) e->set_residency_after(*dp->residency_after);
        if (dp->io) {
          e->set_read_bytes(dp->io->bytes_read);
          e->set_read_ios(dp->io->reads_completed);
        }
      }
    }
  }
}

// Each minibatch's times and, when the board has power (`trace` given), its energy from the trace.
void record_minibatches(const std::vector<MinibatchRecord>& minibatches, const energy::PowerTrace* trace,
                        proto::RunResult& result) {
  for (const auto& m : minibatches) {
    auto* r = result.add_minibatches();
    r->set_epoch(static_cast<std::uint32_t>(m.epoch));
    r->set_index(static_cast<std::uint32_t>(m.index));
    r->set_stall_s(m.stall_ns / 1e9);
    r->set_compute_s(m.compute_ns / 1e9);
    if (m.loss) r->set_loss(*m.loss);
    if (trace) {
      const auto energy =
          energy::window_energy(*trace, "minibatch", m.start_ns, m.start_ns + m.stall_ns + m.compute_ns);
      if (energy.total_energy_mj) r->set_energy_j(*energy.total_energy_mj / 1000.0);
    }
  }
}

// The data set's medium and page-cache state, from the host's real file system (the pipeline
// keeps the monitor); a synthetic data set has no files.
void attach_data_path(loaders::Pipeline& pipeline, const loaders::DatasetInfo& info, proto::RunResult& result) {
  if (info.files.empty()) {
    result.mutable_context()->set_dataset_medium("none (synthetic)");
    return;
  }
  auto data_path = std::make_shared<loaders::DataPathMonitor>(sysfs::Root("/"), info.files, info.root);
  result.mutable_context()->set_dataset_medium(data_path->medium_name());
  pipeline.attach_data_path(std::move(data_path));
}

// A data-parallel run's ranks after training: their figures, and the rank whose loss ended a
// failed run (its death is the cause; the broken connection the rest saw is not).
void record_ranks(distributed::NodeRanks& ranks, const TrainingResult& trained, int rank, proto::RunResult& result) {
  const bool ok = trained.status == RunStatus::kOk;
  const auto failure = ranks.end(ok);
  *result.mutable_distributed() = distributed::distributed_outcome(trained, result.resolved(), rank);
  if (!failure) return;
  result.mutable_distributed()->set_failed_rank(static_cast<std::uint32_t>(failure->rank));
  set_failure(result, proto::FAILED,
              ok ? failure->why : fmt::format("{}; the other ranks stopped: {}", failure->why, result.reason()));
}

// A data-parallel epoch's samples are the world's, but this board's energy is its own ranks' work:
// its J per sample is over the samples of the ranks on this node (the epoch window counted only
// the first rank's shard). Node 0 of a world of several machines takes the world's sum later.
void per_sample_on_this_node(const distributed::RankPlace& place, int ranks_on_node, proto::RunResult& result) {
  for (auto& epoch : *result.mutable_epochs()) {
    if (!epoch.has_energy_j()) continue;
    std::uint64_t samples = 0;
    for (const auto& rank : result.distributed().ranks()) {
      const auto r = static_cast<int>(rank.rank());
      if (rank.epoch() == epoch.epoch() && r >= place.rank && r < place.rank + ranks_on_node) samples += rank.samples();
    }
    if (samples > 0) {
      epoch.set_energy_per_sample_j(epoch.energy_j() / static_cast<double>(samples));
    } else {
      epoch.clear_energy_per_sample_j();
    }
  }
}

// workload.evaluate: the validation split after every epoch, untimed and outside the epochs'
// energy windows; workload.target_f1 is judged on it. `config` points into the split returned.
std::optional<ValidationSplit> open_training_validation(const proto::ExperimentSpec& spec,
                                                        const loaders::DatasetSpec& dataset_spec,
                                                        TrainingConfig& config) {
  const auto& w = spec.workload();
  if (w.has_target_f1()) {
    check_target_f1(w.target_f1());
    if (!w.evaluate()) {
      throw std::invalid_argument(
          fmt::format("workload.target_f1 {} needs workload.evaluate: true (the target is a dev F1)", w.target_f1()));
    }
  }
  if (!w.evaluate()) return std::nullopt;
  loaders::text::SquadSpanOptions spans;
  if (w.n_best_size() > 0) spans.n_best_size = w.n_best_size();
  if (w.max_answer_length() > 0) spans.max_answer_length = w.max_answer_length();
  return open_validation_split(dataset_spec, training_pipeline_options(spec), config, spans);
}

// Adaptive profiling: after every minibatch, its time (stall + compute) and, once the power trace
// covers it, its mean power feed the stopping rule; the run ends when both have settled.
class AdaptiveTrainingStop {
 public:
  AdaptiveTrainingStop(const proto::AdaptiveSpec& spec, jetson::measurement::PowerSession& power)
      : rule_(adaptive_options(spec), power.has_power()), power_(power) {}

  /// TrainingConfig::stop_after: called after each minibatch, while the sampler runs.
  bool settled_after(const TrainingProgress& progress) {
    const std::int64_t end_ns = energy::WindowRecorder::now_ns();
    rule_.add_time(static_cast<double>(progress.stall_ns + progress.compute_ns) / 1e9);
    if (rule_.judges_power()) {
      unpowered_.emplace_back(end_ns - progress.stall_ns - progress.compute_ns, end_ns);
      while (!unpowered_.empty()) {
        const auto mean = power_.mean_power(unpowered_.front().first, unpowered_.front().second);
        if (!mean.covered) break;
        if (mean.watts) rule_.add_power(*mean.watts);
        unpowered_.pop_front();
      }
    }
    return rule_.settled();
  }

  const AdaptiveStop& rule() const { return rule_; }

 private:
  AdaptiveStop rule_;
  jetson::measurement::PowerSession& power_;
  std::deque<std::pair<std::int64_t, std::int64_t>> unpowered_;  ///< minibatch windows the trace has not reached
};

// workload.pretrained by content (RunContext.pretrained_sha256): the files the model loaded.
void record_checkpoint(const PretrainedLoad& load, proto::RunResult& result) {
  result.mutable_context()->set_pretrained_sha256(checkpoint_digest(load.model_dir, load.weights_file));
}

// The trainer's outcome and what it resolved: status, the optimizer and weight decay (its defaults
// depend on the model's task), sync mode, memory peaks.
void record_trained(const TrainingResult& trained, proto::RunResult& result) {
  result.set_status(to_proto(trained.status));
  if (!trained.error.empty()) add_note(result, trained.error);
  auto* resolved = result.mutable_resolved()->mutable_workload();
  resolved->set_optimizer(trained.optimizer == optimizer_name(OptimizerKind::kSgd) ? proto::SGD : proto::ADAMW);
  resolved->set_weight_decay(trained.weight_decay);
  if (trained.learning_rate > 0) resolved->set_learning_rate(trained.learning_rate);
  result.set_async(!trained.synchronized);
  fill_memory(trained.memory, *result.mutable_memory());
}

}  // namespace

// A training's place in a data-parallel world of several nodes (nnodes > 1): the node leaders
// agree on their boards' modes before training and node 0 takes every board's energy and mode
// after it, through the rendezvous's store, which the node's ranks hold until the run's record is
// complete. One node (nnodes = 1): none of that.
struct CharacterizationExecutor::NodeWorld {
  int nnodes = 1;
  int node_rank = 0;
  std::string not_in_mode;  ///< why this node's board is not in its mode before the run; empty: it is
  std::optional<distributed::NodeRanks> ranks;
  /// A node other than 0 beats from its training until its report is out (node_reports.h).
  std::optional<distributed::NodeBeat> beat;
  bool refused = false;  ///< some node's board was not in its mode: nothing trained, nothing to cool down from
  bool trained = false;  ///< training ran (whatever its status): the nodes report to node 0

  explicit NodeWorld(const proto::WorkloadSpec& w) {
    if (w.task() != proto::TRAIN || !data_parallel(w)) return;
    nnodes = static_cast<int>(std::max<std::uint32_t>(1, w.distributed().nnodes()));
    node_rank = static_cast<int>(w.distributed().node_rank());
  }
  bool spans_nodes() const { return nnodes > 1; }
};

CharacterizationExecutor::CharacterizationExecutor(jetson::BoardHandle& board, std::ostream* log)
    : board_(board),
      log_(log),
      info_(jetson::discover_board_info(*board.root, board.request)),
      default_threads_(torch::get_num_threads()) {}

CharacterizationExecutor::~CharacterizationExecutor() = default;

void CharacterizationExecutor::restore() {
  if (control_) control_->restore();
}

void CharacterizationExecutor::enter_mode(const sweeps::PlannedRun& run) {
  current_mode_key_ = run.mode_key;
  baseload_.reset();
  mode_error_.clear();
  const auto& device = run.spec.device();
  try {
    const bool board_mode = device.has_preset_mode() || has_custom_settings(device);
    if ((board_mode || has_nvml_settings(device)) && !control_) {
      control_ = std::make_unique<jetson::ControlSession>(*board_.root, board_.state_dir, board_.after_write());
    }
    if (board_mode) {
      const auto plan =
          device.has_preset_mode()
              ? jetson::plan_nvpmodel_mode(*board_.root, control_->controls(), static_cast<int>(device.preset_mode()),
                                           device.allow_reboot_modes())
              : jetson::plan_custom_mode(*board_.root, control_->controls(), custom_power_mode(device),
                                         device.snap_to_available(), &control_->journal());
      jetson::ApplyOptions options;
      options.after_write = board_.after_write();
      options.interrupt = &control_->interrupt();
      control_->apply(plan, options);
      mode_name_ = device.has_preset_mode() ? plan.description : "custom: " + sweeps::describe_mode(device);
    } else {
      mode_name_ = "as found";
    }
    if (has_nvml_settings(device)) {
      // NVML's knobs (a power-limit axis): journalled in the same session as the sysfs writes.
      auto nvml = jetson::NvmlLibrary::open();
      if (!nvml.library) throw std::invalid_argument("NVML knobs: " + nvml.absent.value_or("NVML is absent"));
      const auto writes = jetson::plan_nvml_writes(*nvml.library, nvml_settings(device));
      jetson::apply_nvml_writes(*nvml.library, control_->journal(), writes);
      for (const auto& write : writes) mode_name_ += "; " + write.description;
    }
  } catch (const jetson::Interrupted&) {
    throw;
  } catch (const std::invalid_argument& e) {
    // The board does not offer this mode: every run in it is INVALID, the sweep goes on.
    mode_error_ = e.what();
    mode_name_ = "not applied";
    return;
  }
  if (log_ != nullptr) *log_ << fmt::format("power mode: {}\n", mode_name_);

  const double baseload_s = run.spec.measurement().baseload_s();
  if (baseload_s > 0) {
    jetson::measurement::PowerSession session(*board_.root, resolve_defaults(run.spec).measurement().sample_rate_hz());
    if (session.has_power()) {
      const jetson::IdleHold idle(*board_.hooks);  // a modelled board's idle, not its host's load
      session.start();
      baseload_ = session.measure_baseload(baseload_s, &interrupt_);
      session.stop();
    }
  }
}

void CharacterizationExecutor::fill_context(proto::RunResult& result) const {
  auto* c = result.mutable_context();
  c->set_schema_version(kSchemaVersion);
  c->set_simulated(board_.hooks->power_modelled());
  c->set_board_kind(board_.recorded_kind(info_));
  const auto& id = info_.identity;
  if (id.model) c->set_board_model(*id.model);
  if (id.family) c->set_family(*id.family);
  if (id.module_pnumber) c->set_module(*id.module_pnumber);
  if (id.l4t) c->set_l4t(id.l4t->version());
  if (id.jetpack) c->set_jetpack(*id.jetpack);
  c->set_power_mode(mode_name_);
  for (int cpu : info_.cpu.online) c->add_online_cpus(cpu);
  for (const auto& policy : info_.cpu.policies) {
    auto* clock = c->add_clocks();
    clock->set_name(policy.name);
    if (policy.cur_freq_khz) clock->set_freq_mhz(*policy.cur_freq_khz / 1e3);
    if (policy.min_freq_khz) clock->set_min_mhz(*policy.min_freq_khz / 1e3);
    if (policy.max_freq_khz) clock->set_max_mhz(*policy.max_freq_khz / 1e3);
    if (policy.governor) clock->set_governor(*policy.governor);
  }
  if (const auto& gpu = info_.gpu.gpu) {
    auto* clock = c->add_clocks();
    clock->set_name("gpu");
    if (gpu->cur_freq_hz) clock->set_freq_mhz(*gpu->cur_freq_hz / 1e6);
    if (gpu->min_freq_hz) clock->set_min_mhz(*gpu->min_freq_hz / 1e6);
    if (gpu->max_freq_hz) clock->set_max_mhz(*gpu->max_freq_hz / 1e6);
    if (gpu->governor) clock->set_governor(*gpu->governor);
  }
  if (info_.emc.cur_rate_hz) {
    auto* clock = c->add_clocks();
    clock->set_name("emc");
    clock->set_freq_mhz(*info_.emc.cur_rate_hz / 1e6);
  }
#ifdef NDEBUG
  c->set_build_type("optimized");
#else
  c->set_build_type("debug (timings are not representative)");
#endif
  c->set_jetchar_version(std::string(version_string()));
  c->set_torch_version(TORCH_VERSION);
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) c->set_hostname(redact_serial_ ? jetson::sha256_text(host) : host);
  const jetson::DeviceIdentity device = jetson::device_identity(id, host, redact_serial_);
  c->set_serial_number(device.serial_number);
  c->set_device_id(device.device_id);
  // A fleet task runs under slurmstepd, which names its node (Slurm's SLURMD_NODENAME).
  if (const char* node = std::getenv("SLURMD_NODENAME"); node != nullptr) c->set_node(node);
  if (baseload_) {
    auto* b = result.mutable_baseload();
    b->set_duration_s((baseload_->end_ns - baseload_->begin_ns) / 1e9);
    if (baseload_->total_power_mw) b->set_power_w(*baseload_->total_power_mw / 1000.0);
    for (const auto& rail : baseload_->rails) {
      if (!rail.mean_power_mw) continue;
      auto* r = b->add_rails();
      r->set_rail(rail.name);
      r->set_average_power_w(*rail.mean_power_mw / 1000.0);
      if (rail.stddev_mw) b->set_stddev_w(std::max(b->stddev_w(), *rail.stddev_mw / 1000.0));
    }
  }
}

proto::RunResult CharacterizationExecutor::execute(const sweeps::PlannedRun& run) {
  power_samples_.clear();
  proto::RunResult result;
  result.set_status(proto::OK);
  *result.mutable_requested() = run.spec;
  *result.mutable_resolved() = resolve_defaults(run.spec);
  result.mutable_context()->set_started_utc(utc_now());
  const auto start = std::chrono::steady_clock::now();

  if (!current_mode_key_ || *current_mode_key_ != run.mode_key) enter_mode(run);
  // What ran is what is recorded: the board is read back before every run (the context and the
  // resolved knobs come from it), refused when it is not in the requested mode (as found:
  // nothing was requested) and read again after the run to catch a change while it ran.
  // A node of a world of several still joins it when its board is not in its mode, so that every
  // node records the run as INVALID, naming this one (distributed/mode_agreement.h).
  if (mode_error_.empty()) info_ = jetson::discover_board_info(*board_.root, board_.request);
  const jetson::BoardInfo mode_at_start = info_;
  fill_context(result);
  NodeWorld world(result.resolved().workload());
  if (!mode_error_.empty()) {
    if (!world.spans_nodes()) {
      set_failure(result, proto::INVALID, "power mode not applied: " + mode_error_);
      return result;
    }
    world.not_in_mode =
        fmt::format("the power mode could not be applied to the board of node {}: {}", world.node_rank, mode_error_);
  }
  const auto nvpmodel_at_start = nvpmodel_mode_now(*board_.root);
  if (mode_error_.empty() && mode_name_ != "as found") {
    record_resolved_knobs(mode_at_start, *result.mutable_resolved()->mutable_device());
    if (const auto differences = differences_from_request(run.spec.device(), mode_at_start, nvpmodel_at_start);
        !differences.empty()) {
      if (!world.spans_nodes()) {
        set_failure(result, proto::INVALID,
                    fmt::format("the board is not in the requested mode: {}", fmt::join(differences, "; ")));
        return result;
      }
      world.not_in_mode = fmt::format("the board of node {} is not in the requested mode: {}", world.node_rank,
                                      fmt::join(differences, "; "));
    }
  }
  // workload.threads, or LibTorch's own choice; the resolved settings say how many ran.
  const int threads = set_compute_threads(rank_threads(result.resolved().workload(), default_threads_));
  result.mutable_resolved()->mutable_workload()->set_threads(static_cast<std::uint32_t>(threads));
  try {
    if (result.resolved().workload().task() == proto::INFER) {
      run_inference(run, result);
    } else {
      run_training(run, result, world);
    }
  } catch (const jetson::Interrupted&) {
    throw;
  } catch (const std::invalid_argument& e) {
    set_failure(result, proto::INVALID, e.what());
  } catch (const std::exception& e) {
    set_failure(result, proto::FAILED, e.what());
  }
  const bool interrupted = interrupt_.signal() != 0 && result.status() != proto::INVALID;
  std::vector<std::string> changes;
  if (interrupted) {
    // Whatever the loop had measured when the signal came is kept, never called OK.
    set_failure(result, proto::INTERRUPTED,
                fmt::format("stopped by {} inside the run: its figures are partial",
                            interrupt_.signal() == SIGTERM ? "SIGTERM" : "SIGINT"));
  } else if (result.status() == proto::OK) {
    changes =
        changes_between(mode_at_start, jetson::discover_board_info(*board_.root, board_.request), run.spec.device());
    if (const auto nvpmodel_now = nvpmodel_mode_now(*board_.root); nvpmodel_now != nvpmodel_at_start) {
      changes.push_back(
          fmt::format("nvpmodel mode {} became {}", nvpmodel_at_start.value_or(-1), nvpmodel_now.value_or(-1)));
    }
    if (!changes.empty()) {
      set_failure(result, proto::INVALID,
                  fmt::format("the power mode changed during the run: {}", fmt::join(changes, "; ")));
    }
  }
  if (world.spans_nodes() && world.trained && world.ranks) exchange_node_reports(world, changes, result);
  world.beat.reset();
  world.ranks.reset();
  if (interrupted || world.refused) {
    result.set_duration_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return result;
  }
  result.set_duration_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  cool_down(run.spec.cooldown());
  return result;
}

void CharacterizationExecutor::run_training(const sweeps::PlannedRun&, proto::RunResult& result, NodeWorld& world) {
  const auto spec = result.resolved();
  const auto& w = spec.workload();
  check_phases(spec);
  // One spec per pretraining phase (training_phases.h); the spec itself for a run without phases.
  const auto phases = phase_specs(spec);
  const bool phased = w.phases_size() > 0;
  // Data-parallel: this process is its node's first rank and trains on that rank's shard.
  const auto place = distributed::first_rank_of_node(w.distributed());
  // One phase's data, model, validation split and pacer, opened before it trains: the first
  // phase's before the measurement session starts (opening data and counting the model's work are
  // not the run's), a later one's between the phases.
  struct PreparedPhase {
    TrainingWorkload workload;
    std::optional<ValidationSplit> validation;  // workload.config points into it
    std::string unpaced;
    std::unique_ptr<jetson::MinibatchPacer> pacer;
  };
  auto prepare = [&](std::size_t p, TrainingWorkload workload) {
    auto prepared = std::make_unique<PreparedPhase>();
    prepared->workload = std::move(workload);
    auto& opened = prepared->workload;
    prepared->validation = open_training_validation(phases[p], opened.dataset_spec, opened.config);
    // A board with a time model (the simulated one) paces each minibatch's fetch stall and compute
    // to it, so its times follow the mode's clocks; its pacer also pins the rails' activity for the
    // run. The work is counted on the data set's samples: a checkpoint may hold fewer positions
    // than the model's default sequence length, and the samples are what the run computes on.
    const auto& data = *opened.dataset;
    prepared->pacer = board_.hooks->pace_training(
        info_, count_model_work(*opened.model, opened.model_spec, data.info().layout.input_shape),
        count_fetch_work(data.info(), data.size(), static_cast<int>(phases[p].loader().workers())),
        phases[p].workload().batch_size(), prepared->unpaced);
    return prepared;
  };
  auto current = prepare(0, open_phase_workload(spec, phases, 0, place.rank, place.world_size, nullptr));
  const auto pretrained = current->workload.pretrained;
  attach_data_path(*current->workload.pipeline, current->workload.dataset->info(), result);
  if (pretrained) record_checkpoint(*pretrained, result);
  // A token model's sequence length is its samples' (the data set's max_length); a phased run's
  // are its phases'.
  if (const auto& shape = current->workload.dataset->info().layout.input_shape;
      !phased && current->workload.model_spec.token_input() && shape.size() == 1)
    result.mutable_resolved()->mutable_workload()->set_sequence_length(static_cast<std::uint32_t>(shape[0]));
  record_cuda_context(current->workload.config.device, *result.mutable_context());

  jetson::measurement::MeasurementSession session(*board_.root, measurement_options(spec.measurement(), board_));
  auto& power = session.onboard();
  const auto& meters = session.meters();
  record_power_monitor_settings(power, result);
  const auto marker = open_marker(spec.measurement(), board_);
  if (marker) session.set_marker(*marker, {energy::WindowKind::kRun, energy::WindowKind::kEpoch});
  std::optional<AdaptiveTrainingStop> adaptive;
  if (spec.adaptive().enabled()) adaptive.emplace(spec.adaptive(), power);

  // The node's other ranks start and the world joins before the measurement begins; across nodes,
  // nothing trains unless every node's board is in its mode.
  std::optional<distributed::NodeRanks>& ranks = world.ranks;
  if (data_parallel(w)) {
    ranks.emplace(result.resolved());
    if (world.spans_nodes() && world.node_rank != 0) world.beat.emplace(ranks->group(), world.node_rank);
    if (world.spans_nodes()) {
      if (const auto verdict = distributed::agree_on_modes(ranks->group(), world.nnodes, world.not_in_mode);
          !verdict.empty()) {
        ranks->end(false);
        set_failure(result, proto::INVALID, verdict);
        world.refused = true;
        return;
      }
    }
  }
  session.start();
  const auto run_window = power.windows().begin("run", energy::WindowKind::kRun);
  // What each phase trained, recorded once the measurement has stopped.
  struct TrainedPhase {
    TrainingResult trained;
    std::vector<InstrumentedEpoch> instrumented;
    double dilation = 1;
    std::int64_t number = 0;        // from 1; 0 without phases
    std::int64_t epoch_offset = 0;  // the epochs of the phases before
  };
  std::vector<TrainedPhase> trained_phases;
  std::vector<std::string> source_notes;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    if (p > 0) {
      auto next = open_phase_workload(spec, phases, p, place.rank, place.world_size, &current->workload);
      current.reset();  // the phase before's pacer first: one pins the board's activity at a time
      current = prepare(p, std::move(next));
    }
    const auto phase_number = phased ? static_cast<std::int64_t>(p + 1) : 0;
    const std::string note_prefix = phased ? fmt::format("phase {}: ", phase_number) : "";
    // Each phase packs the corpus at its own length: its data set's notes are its own.
    for (const auto& note : current->workload.dataset->info().notes) add_note(result, note_prefix + note);
    const std::int64_t epoch_offset = trained_phases.empty()
                                          ? 0
                                          : trained_phases.back().epoch_offset +
                                                static_cast<std::int64_t>(trained_phases.back().trained.epochs.size());
    const auto& dataset = current->workload.dataset;
    auto& pipeline = *current->workload.pipeline;
    const auto& model = current->workload.model;
    const auto& model_spec = current->workload.model_spec;
    TrainingConfig& config = current->workload.config;
    jetson::MinibatchPacer* pacer = current->pacer.get();
    if (pacer) {
      config.pace_fetch = [pacer](auto start, std::int64_t index, std::int64_t samples) {
        return pacer->pace_fetch(start, index, samples);
      };
      config.pace_compute = [pacer](auto start, std::int64_t samples) { return pacer->pace(start, samples); };
    }

    EpochInstrumentedSource source(pipeline, spec.cache(), dataset->info().files, &power.windows());
    config.stop_after = [this, &adaptive](const TrainingProgress& progress) {
      return interrupt_.signal() != 0 || (adaptive && adaptive->settled_after(progress));
    };
    config.on_batch = [this](const TrainingProgress& progress) {
      heartbeat();
      if (observer_ != nullptr) observer_->minibatch_done(progress);
    };
    config.on_epoch_end = [&source] { source.end_epoch(); };
    // k is known from the first minibatch on (modelled_time_pacer.h), before any epoch ends.
    config.on_epoch_done = [this, pacer, phase_number, epoch_offset](const EpochResult& epoch) {
      if (observer_ == nullptr) return;
      auto shown = undilated(epoch, pacer ? pacer->paced_time().dilation : 1.0);
      shown.epoch += epoch_offset;
      shown.phase = phase_number;
      observer_->epoch_done(shown);
    };
    if (ranks) config.data_parallel = &ranks->data_parallel();

    auto phase_trained = train(*model, source, config, *board_.root, model_spec.name);
    world.trained = true;
    source.finish();
    const auto paced = pacer ? std::optional(pacer->paced_time()) : std::nullopt;
    const double dilation = paced ? paced->dilation : 1.0;
    if (paced) {
      record_paced_time(*paced, result, note_prefix);
    } else if (!current->unpaced.empty()) {
      add_note(result, note_prefix + "times are this host's, not modelled: " + current->unpaced);
    }
    for (const auto& note : source.notes()) source_notes.push_back(note_prefix + note);
    const bool go_on = phase_trained.status == RunStatus::kOk && !phase_trained.stopped_early;
    trained_phases.push_back({std::move(phase_trained), source.epochs(), dilation, phase_number, epoch_offset});
    if (!go_on) break;
  }
  power.windows().end("run");
  session.stop();
  // Each phase's epochs and minibatches, on the board's time (each phase its own k), numbered on
  // from the phases before; recorded once the session has stopped (the meters' readings are
  // aligned to the run's clock then).
  std::optional<TrainingResult> trained;  // every phase's, in one
  double run_dilation = 1;                // the largest phase's k
  const auto trace = power.trace();
  for (auto& phase : trained_phases) {
    proto::RunResult part;
    record_epochs(phase.trained.epochs, phase.instrumented, power, meters, run_window,
                  baseload_ ? &*baseload_ : nullptr, part);
    record_minibatches(phase.trained.minibatches, power.has_power() ? &trace : nullptr, part);
    std::vector<results::StoredPowerSample> no_samples;  // the run's are taken below
    undilate(phase.dilation, part, no_samples);
    run_dilation = std::max(run_dilation, phase.dilation);
    for (auto& epoch : *part.mutable_epochs()) {
      epoch.set_epoch(static_cast<std::uint32_t>(epoch.epoch() + phase.epoch_offset));
      epoch.set_phase(static_cast<std::uint32_t>(phase.number));
      *result.add_epochs() = std::move(epoch);
    }
    for (auto& minibatch : *part.mutable_minibatches()) {
      minibatch.set_epoch(static_cast<std::uint32_t>(minibatch.epoch() + phase.epoch_offset));
      *result.add_minibatches() = std::move(minibatch);
    }
    auto board_time = undilated(std::move(phase.trained), phase.dilation);
    if (phased) {
      *result.add_phases() =
          phase_result(result, board_time, phases[static_cast<std::size_t>(phase.number - 1)].workload(), phase.number);
    }
    if (!trained) {
      trained = std::move(board_time);
      for (auto& epoch : trained->epochs) epoch.phase = phase.number;
    } else {
      append_phase(*trained, std::move(board_time), phase.number);
    }
  }
  if (observer_ != nullptr) observer_->trained(*trained, {current->workload.dataset->info().name, pretrained});

  if (marker) record_marker(*marker, result);
  if (!meters.empty()) record_meters(meters, power.windows().windows()[run_window], result);
  record_trained(*trained, result);
  if (ranks) record_ranks(*ranks, *trained, place.rank, result);
  for (const auto& note : source_notes) add_note(result, note);
  if (adaptive) record_adaptive(adaptive->rule(), trained->stopped_early, result);
  if (ranks)
    per_sample_on_this_node(place, static_cast<int>(std::max<std::uint32_t>(1, w.distributed().nproc_per_node())),
                            result);
  if (run_dilation != 1) result.mutable_modelled_time()->set_dilation(run_dilation);
  if (spec.measurement().power_samples()) {
    // Phases refuse stored samples (check_phases): the run has one time base, its one k.
    power_samples_ = stored_samples(trace, meters, power.windows().windows()[run_window]);
    for (auto& sample : power_samples_) sample.t_s /= run_dilation;
  }
  if (w.has_target_f1()) *result.mutable_target() = target_outcome(result.epochs(), w.target_f1());
  if (power.has_power()) {
    if (!trace.empty()) result.mutable_context()->set_energy_source(energy::total_definition(trace).label);
  } else {
    add_note(result, "no power sensors on this board: energy not measured");
  }
}

// A node of a world of several after training: node 0's record takes every node's energy and mode
// (distributed/node_reports.h); the others tell node 0 and keep their own board's figures, so that
// no board's energy is counted in two records. A failed exchange fails node 0's record (it is the
// run) and is a note in another node's (its figures are its own all the same).
void CharacterizationExecutor::exchange_node_reports(NodeWorld& world, const std::vector<std::string>& mode_changes,
                                                     proto::RunResult& result) const {
  proto::NodeReport own;
  own.set_node_rank(static_cast<std::uint32_t>(world.node_rank));
  own.set_status(result.status());
  if (result.status() != proto::OK) own.set_reason(result.reason());
  for (const auto& change : mode_changes) own.add_mode_changes(change);
  for (auto& epoch : distributed::node_epoch_energy(result, world.node_rank, board_.label))
    *own.add_epochs() = std::move(epoch);
  auto& group = world.ranks->group();
  try {
    if (world.node_rank != 0) {
      distributed::publish_node_report(group, own);
      return;
    }
    // A run that is not OK on node 0 for its own reasons is not the world's sum either.
    if (result.status() != proto::OK && mode_changes.empty()) return;
    auto nodes = distributed::read_node_reports(group, world.nnodes);
    nodes.insert(nodes.begin(), own);
    distributed::sum_world_energy(nodes, result);
    distributed::judge_node_reports(nodes, result);
    if (const auto& w = result.resolved().workload(); w.has_target_f1())
      *result.mutable_target() = target_outcome(result.epochs(), w.target_f1());
  } catch (const std::exception& error) {
    if (world.node_rank == 0) {
      set_failure(result, proto::FAILED, error.what());
    } else {
      add_note(result, fmt::format("node 0 could not be told this board's energy and mode: {}", error.what()));
    }
  }
}

void CharacterizationExecutor::run_inference(const sweeps::PlannedRun&, proto::RunResult& result) {
  const auto spec = result.resolved();
  const auto& w = spec.workload();
  auto model_spec = find_model(w.model());
  const auto classes =
      w.inference().classes() > 0 ? std::optional<std::int64_t>(w.inference().classes()) : std::nullopt;
  std::shared_ptr<Network> model;
  std::optional<PretrainedLoad> pretrained_load;
  if (w.pretrained().empty()) {
    model = make_model(model_spec, classes);
  } else {
    auto pretrained = make_pretrained_model(model_spec, w.pretrained(), classes, w.seed());
    model = pretrained.network;
    pretrained_load = pretrained.load;
    record_checkpoint(pretrained.load, result);
    model_spec.vocab_size = pretrained.config.vocab_size;  // synthetic ids inside the checkpoint's vocabulary
  }
  InferenceConfig config;
  config.num_classes = classes;
  config.device = parse_device(w.device());
  record_cuda_context(config.device, *result.mutable_context());
  config.batch_size = w.batch_size();
  if (w.sequence_length() > 0) config.sequence_length = w.sequence_length();
  // workload.dataset: the queries take its validation split's samples (SQuAD's dev windows of
  // sequence_length tokens), collated before the timed queries; unset: synthetic inputs.
  std::optional<QueryInputs> inputs;
  if (!w.dataset().empty()) {
    const auto dataset = open_inference_dataset(
        w.dataset(), model_spec, config.sequence_length,
        w.pretrained().empty() ? std::nullopt : std::optional<std::filesystem::path>(w.pretrained()));
    inputs = dataset_query_inputs(*dataset, config.batch_size);
    config.inputs = &*inputs;
  }
  config.warmup = w.inference().warmup_batches();
  if (w.inference().min_queries() > 0) config.min_queries = w.inference().min_queries();
  if (w.inference().min_duration_s() > 0) config.min_duration_s = w.inference().min_duration_s();
  config.precision = precision_of(w);
  config.seed = w.seed();
  config.on_query = [this] { heartbeat(); };
  config.stop_requested = [this] { return interrupt_.signal() != 0; };
  config.scenario = scenario_of(w.inference());  // MLPerf LoadGen's (inference_runner.h)
  if (w.inference().has_latency_bound_ms()) config.latency_bound_ms = w.inference().latency_bound_ms();
  if (spec.adaptive().enabled()) add_note(result, "adaptive stopping applies to training runs only: ignored");
  // A board with a time model (the simulated one) paces each query to it, as it paces training
  // minibatches, and pins the rails' activity for the run.
  std::string unpaced;
  const std::unique_ptr<jetson::MinibatchPacer> pacer =
      board_.hooks->pace_inference(info_, count_model_work(*model, model_spec, query_sample_shape(model_spec, config)),
                                   config.batch_size, config.warmup, unpaced);
  // Trials run after the warm-up has calibrated k.
  config.on_server_trial = [this, &pacer](const ServerTrial& trial) {
    if (observer_ != nullptr) observer_->server_trial(undilated(trial, pacer ? pacer->paced_time().dilation : 1.0));
  };
  if (pacer) {
    config.pace_query = [&pacer](auto start, std::int64_t samples) { return pacer->pace(start, samples); };
    config.time_dilation = [&pacer] { return pacer->paced_time().dilation; };
    config.board_idle = [&pacer](bool idle) { pacer->set_idle(idle); };
  } else if (!unpaced.empty()) {
    add_note(result, "latencies are this host's, not modelled: " + unpaced);
  }

  jetson::measurement::MeasurementSession session(*board_.root, measurement_options(spec.measurement(), board_));
  auto& power = session.onboard();
  const auto& meters = session.meters();
  const auto marker = open_marker(spec.measurement(), board_);
  if (marker) session.set_marker(*marker, {energy::WindowKind::kRun});
  // Modelled rails follow the mode's clocks and this host's measured utilization while the
  // queries run (as `jetchar monitor` and `infer` refresh them).
  jetson::SensorRefresh refresh(*board_.hooks, std::chrono::milliseconds(100));
  session.start();
  const auto window = power.windows().begin("run", energy::WindowKind::kRun);
  const auto inferred = experiments::run_inference(*model, model_spec, config, *board_.root);
  power.windows().end("run");
  session.stop();
  refresh.stop();
  if (marker) record_marker(*marker, result);
  if (!meters.empty()) record_meters(meters, power.windows().windows()[window], result);

  result.set_status(to_proto(inferred.status));
  if (!inferred.error.empty()) add_note(result, inferred.error);
  fill_memory(inferred.memory, *result.mutable_memory());
  auto* l = result.mutable_latency();
  if (inferred.latency) {
    const auto& s = *inferred.latency;
    l->set_batches(static_cast<std::uint64_t>(s.count));
    l->set_avg_ms(s.avg_ns / 1e6);
    l->set_p50_ms(s.p50_ns / 1e6);
    l->set_p90_ms(s.p90_ns / 1e6);
    l->set_p95_ms(s.p95_ns / 1e6);
    l->set_p99_ms(s.p99_ns / 1e6);
    l->set_max_ms(s.max_ns / 1e6);
  }
  l->set_throughput_samples_per_s(inferred.samples_per_s);
  l->set_inputs(inferred.inputs);
  if (inferred.sequence_length)
    result.mutable_resolved()->mutable_workload()->set_sequence_length(
        static_cast<std::uint32_t>(*inferred.sequence_length));
  if (inferred.input_samples) l->set_input_samples(static_cast<std::uint64_t>(*inferred.input_samples));
  if (inferred.server) {
    // `latency` and J/query are the highest passing trial's, whose queries are one sample each.
    *result.mutable_server() = to_proto(*inferred.server);
    if (!inferred.server->best && !inferred.server->stopped) {
      add_note(result, fmt::format("server: no rate tried kept the p99 latency within {} ms (one query takes about "
                                   "that long or longer; see server.trials)",
                                   w.inference().latency_bound_ms()));
    }
  }
  if (spec.measurement().power_samples())
    power_samples_ = stored_samples(power.trace(), meters, power.windows().windows()[window]);
  std::optional<QueryEnergy> per_query;
  if (!power.has_power()) {
    add_note(result, "no power sensors on this board: energy not measured");
  } else {
    if (const auto trace = power.trace(); !trace.empty())
      result.mutable_context()->set_energy_source(energy::total_definition(trace).label);
    if (inferred.latency && inferred.timed_end_ns > inferred.timed_begin_ns) {
      // J/query and J/sample over the timed queries only (query_energy.h): warm-up is not a query.
      energy::Window timed;
      timed.name = "queries";
      timed.kind = energy::WindowKind::kOther;
      timed.begin_ns = inferred.timed_begin_ns;
      timed.end_ns = inferred.timed_end_ns;
      per_query = query_energy(power.energy(timed, baseload_ ? &*baseload_ : nullptr), inferred.latency->count,
                               inferred.server ? 1 : config.batch_size);
      // The span's share of the host's delay past the board's queries is not the board's energy.
      if (per_query && inferred.host_delay_ns > 0 && inferred.timed_ns > 0) {
        per_query = undilated(*per_query, static_cast<double>(inferred.timed_ns + inferred.host_delay_ns) /
                                              static_cast<double>(inferred.timed_ns));
      }
      if (per_query) {
        l->set_energy_per_query_j(per_query->per_query_j);
        l->set_energy_per_sample_j(per_query->per_sample_j);
      }
    }
  }
  const auto paced = pacer ? std::optional(pacer->paced_time()) : std::nullopt;
  const double dilation = paced ? paced->dilation : 1.0;
  if (paced) record_paced_time(*paced, result);
  undilate(dilation, result, power_samples_);
  if (per_query) per_query = undilated(*per_query, dilation);
  if (observer_ != nullptr)
    observer_->inferred(undilated(inferred, dilation), per_query, {inferred.inputs, pretrained_load});
}

void CharacterizationExecutor::cool_down(const proto::CooldownSpec& cooldown) const {
  // Waits in one-second steps with a heartbeat each, so a long cool-down is not taken for a hang.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point rest_until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cooldown.seconds()));
  while (Clock::now() < rest_until) {
    // A signal ends the rest at once (the sweep stops after this run).
    if (interrupt_.wait(std::chrono::duration_cast<std::chrono::milliseconds>(
            std::min<Clock::duration>(std::chrono::seconds(1), rest_until - Clock::now()))) != 0)
      return;
    heartbeat();
  }
  if (!cooldown.has_max_temperature_c()) return;
  const double limit_mc = cooldown.max_temperature_c() * 1000.0;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(cooldown.timeout_s() > 0 ? cooldown.timeout_s() : 600.0);
  for (;;) {
    double hottest = -1e9;
    for (const auto& zone : jetson::discover_thermal_zones(*board_.root).zones) {
      // -256 °C: a power-gated zone, not a temperature.
      if (zone.temp_mc && *zone.temp_mc > -256000) hottest = std::max(hottest, static_cast<double>(*zone.temp_mc));
    }
    if (hottest <= limit_mc || std::chrono::steady_clock::now() >= deadline) return;
    board_.hooks->refresh_sensors();
    if (interrupt_.wait(std::chrono::seconds(1)) != 0) return;
    heartbeat();
  }
}

}  // namespace jetchar::experiments
