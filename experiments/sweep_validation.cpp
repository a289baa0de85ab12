#include "experiments/sweep_validation.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "experiments/adaptive_stop.h"
#include "experiments/checkpoints/pretrained_vocab.h"
#include "experiments/device_spec.h"
#include "experiments/distributed/rank_group.h"
#include "experiments/inference/inference_dataset.h"
#include "experiments/models/model_dataset_fit.h"
#include "experiments/models/registry.h"
#include "experiments/run_settings.h"
#include "jetson/control/control_points.h"
#include "jetson/control/power_mode.h"
#include "jetson/meters/meter_protocol.h"
#include "jetson/telemetry/gpio_marker.h"
#include "loaders/dataset_spec.h"

namespace jetchar::experiments {
namespace {

// Multiply-accumulates per second of a float32 matrix product on this machine.
double measured_macs_per_s() {
  const auto a = torch::randn({512, 512});
  const auto b = torch::randn({512, 512});
  (void)torch::mm(a, b);  // warm-up
  const auto start = std::chrono::steady_clock::now();
  constexpr int kRepeats = 8;
  for (int i = 0; i < kRepeats; ++i) (void)torch::mm(a, b);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return kRepeats * 512.0 * 512.0 * 512.0 / std::max(seconds, 1e-9);
}

}  // namespace

std::vector<PlanProblem> validate_plan_against_board(const sweeps::SweepPlan& plan, const jetson::BoardHandle& board) {
  const sysfs::Root& root = *board.root;
  std::vector<PlanProblem> problems;
  const auto controls = jetson::discover_device_controls(root);
  std::set<std::string> modes_seen, models_seen, datasets_seen, meters_seen;
  for (const auto& run : plan.runs) {
    const auto& device = run.spec.device();
    if (modes_seen.insert(run.mode_key).second) {
      try {
        if (device.has_preset_mode()) {
          (void)jetson::plan_nvpmodel_mode(root, controls, static_cast<int>(device.preset_mode()),
                                           device.allow_reboot_modes());
        } else if (has_custom_settings(device)) {
          (void)jetson::plan_custom_mode(root, controls, custom_power_mode(device), device.snap_to_available());
        }
      } catch (const std::exception& e) {
        problems.push_back(
            {run.run_id, fmt::format("device (power mode {}): {}", sweeps::describe_mode(device), e.what())});
      }
    }
    const auto& workload = run.spec.workload();
    if (const auto& d = workload.distributed(); !d.backend().empty() && !distributed::backend_available(d.backend())) {
      problems.push_back(
          {run.run_id, "workload.distributed.backend: " + distributed::unavailable_backend(d.backend())});
    }
    if (data_parallel(workload) && workload.task() == proto::INFER) {
      problems.push_back({run.run_id, "workload.distributed applies to training; an INFER run has one process"});
    }
    if (models_seen.insert(workload.model()).second) {
      try {
        (void)find_model(workload.model());
      } catch (const std::exception& e) {
        problems.push_back({run.run_id, fmt::format("workload.model: {}", e.what())});
      }
    }
    // An INFER run queries its data set's validation split (inference_dataset.h), windowed to its
    // sequence length; it may have none (synthetic inputs).
    // A TRAIN run's samples must feed its model (model_dataset_fit.h), so the pair is checked once.
    const bool infer = workload.task() == proto::INFER;
    const std::string dataset_key =
        infer ? fmt::format("infer {} {} {} {}", workload.model(), workload.sequence_length(), workload.pretrained(),
                            workload.dataset())
              : fmt::format("train {} {} {}", workload.model(), workload.dataset(), workload.pretrained());
    if ((!infer || !workload.dataset().empty()) && datasets_seen.insert(dataset_key).second) {
      try {
        if (infer) {
          (void)open_inference_dataset(
              workload.dataset(), find_model(workload.model()),
              workload.sequence_length() > 0 ? std::optional<std::int64_t>(workload.sequence_length()) : std::nullopt,
              workload.pretrained().empty() ? std::nullopt
                                            : std::optional<std::filesystem::path>(workload.pretrained()));
        } else {
          // A pretrained checkpoint's vocab.txt tokenizes a text data set that names none, as in the run.
          auto dataset_spec = loaders::DatasetSpec::parse(workload.dataset());
          if (!workload.pretrained().empty()) use_pretrained_vocab(dataset_spec, workload.pretrained());
          const auto dataset = loaders::open_dataset(dataset_spec);
          const auto& models = model_registry();
          const auto model = std::find_if(models.begin(), models.end(),
                                          [&](const ModelSpec& spec) { return spec.name == workload.model(); });
          if (model != models.end()) require_model_fits_dataset(*model, dataset->info());  // unknown: named above
        }
      } catch (const std::exception& e) {
        problems.push_back({run.run_id, fmt::format("workload.dataset '{}': {}", workload.dataset(), e.what())});
      }
    }
    if (run.spec.adaptive().enabled()) {
      try {
        (void)adaptive_options(run.spec.adaptive());
      } catch (const std::exception& e) {
        problems.push_back({run.run_id, e.what()});
      }
    }
    const auto& measurement = run.spec.measurement();
    for (int m = 0; m < measurement.meters_size(); ++m) {
      const auto& meter = measurement.meters(m);
      if (!meters_seen.insert(meter.protocol() + ":" + meter.device()).second) continue;
      try {
        (void)jetson::meters::make_meter_protocol(meter.protocol());
      } catch (const std::exception& e) {
        problems.push_back({run.run_id, fmt::format("measurement.meters[{}].protocol: {}", m, e.what())});
      }
      std::error_code error;
      if (meter.device().empty() || !std::filesystem::exists(meter.device(), error)) {
        problems.push_back(
            {run.run_id, fmt::format("measurement.meters[{}].device '{}': no such serial device", m, meter.device())});
      }
    }
    if (measurement.has_gpio_marker_line() && !board.hooks->marks_without_gpio()) {
      const std::string chip = measurement.gpio_chip().empty() ? "gpiochip0" : measurement.gpio_chip();
      if (!jetson::gpio_chip_present(root, chip)) {
        problems.push_back(
            {run.run_id, fmt::format("measurement.gpio_chip '{}': no /dev/{} on this board (marker line {})", chip,
                                     std::filesystem::path(chip).filename().string(), measurement.gpio_marker_line())});
      }
    }
  }
  return problems;
}

double estimate_sweep_seconds(const sweeps::SweepPlan& plan) {
  const double macs_per_s = measured_macs_per_s();
  std::map<std::string, double> macs_cache;
  std::map<std::string, std::int64_t> samples_cache;
  double total = 0;
  std::set<std::string> modes;
  for (const auto& run : plan.runs) {
    const auto& spec = run.spec;
    if (modes.insert(run.mode_key).second) total += spec.measurement().baseload_s();
    total += spec.cooldown().seconds();
    const auto& w = spec.workload();
    if (!macs_cache.count(w.model())) {
      try {
        macs_cache[w.model()] = static_cast<double>(macs_per_sample(find_model(w.model())));
      } catch (const std::exception&) {
        macs_cache[w.model()] = 0;
      }
    }
    if (!samples_cache.count(w.dataset())) {
      try {
        samples_cache[w.dataset()] = loaders::open_dataset(loaders::DatasetSpec::parse(w.dataset()))->size();
      } catch (const std::exception&) {
        samples_cache[w.dataset()] = 0;
      }
    }
    const double epochs = std::max<std::uint32_t>(1, w.epochs());
    double samples = static_cast<double>(samples_cache[w.dataset()]);
    if (w.max_minibatches() > 0) samples = std::min(samples, static_cast<double>(w.max_minibatches()) * w.batch_size());
    if (w.task() == proto::INFER) samples = std::max<double>(100, w.inference().min_queries()) * w.batch_size();
    total += epochs * samples * 3 * macs_cache[w.model()] / macs_per_s;
  }
  return total;
}

}  // namespace jetchar::experiments
