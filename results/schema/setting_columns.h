// The settings that tell runs apart: every field of proto::ExperimentSpec that a sweep's axis can
// set, and each repeated field, is either one of them, with the column it has in the results store (table
// run_settings), the export and the analysis configuration key, or listed below with why runs that differ in it are
// samples of one configuration. tests/results/setting_columns_test.cpp walks the spec's schema and fails on a field
// that is neither, so a new field cannot fall out of the key unnoticed. Proto-free (analysis/ reads the columns by
// these names); results/setting_values.h gives a run's values.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace jetchar::results::schema {

struct SettingColumn {
  std::string_view field;   ///< dotted path into ExperimentSpec, as an axis names it
  std::string_view column;  ///< name in run_settings, the export and the analysis key
};

// Columns the export had before this list (batch, accumulate, workers, precision, cache, task,
// async) keep their names.
inline constexpr std::array<SettingColumn, 43> kSettingColumns = {{
    {"workload.dataset", "dataset_options"},  // the options after '?': max_length, stride, vocab, ...
    {"workload.task", "task"},
    {"workload.batch_size", "batch"},
    {"workload.accumulate", "accumulate"},
    {"workload.precision", "precision"},
    {"workload.max_minibatches", "max_minibatches"},
    {"workload.sequence_length", "sequence_length"},
    {"workload.inference.warmup_batches", "warmup_batches"},
    {"workload.inference.classes", "classes"},
    {"workload.inference.scenario", "scenario"},                  // MLPerf LoadGen's; empty = back-to-back batches
    {"workload.inference.latency_bound_ms", "latency_bound_ms"},  // SERVER only (resolved: 100 unless set)
    {"workload.device", "compute_device"},
    {"workload.async", "async"},
    {"workload.transform", "transform"},
    {"workload.pretrained", "pretrained"},  // the checkpoint's content digest, not its path
    {"workload.learning_rate", "learning_rate"},
    {"workload.warmup_proportion", "warmup_proportion"},
    {"workload.optimizer", "optimizer"},
    {"workload.weight_decay", "weight_decay"},
    {"workload.threads", "threads"},
    {"workload.distributed.nproc_per_node", "nproc_per_node"},  // world size = nproc_per_node x nnodes
    {"workload.distributed.nnodes", "nnodes"},
    {"workload.distributed.backend", "backend"},
    {"workload.phases", "phases"},  // each phase as `train --phase` takes it, joined by "; "
    {"loader.workers", "workers"},
    {"loader.prefetch", "prefetch"},
    {"loader.pin_memory", "pin_memory"},
    {"loader.drop_last", "drop_last"},
    {"loader.shuffle", "shuffle"},
    {"cache", "cache"},
    {"device.dvfs", "dvfs"},
    {"device.fan", "fan"},
    {"device.disable_cpu_idle", "disable_cpu_idle"},
    {"device.gpu_power_limit_w", "gpu_power_limit_w"},
    {"device.gpu_locked_clocks_mhz", "gpu_locked_clocks_mhz"},
    {"device.memory_locked_clocks_mhz", "memory_locked_clocks_mhz"},
    {"measurement.sample_rate_hz", "sample_rate_hz"},
    {"cooldown.seconds", "cooldown_s"},
    {"cooldown.max_temperature_c", "cooldown_max_temperature_c"},
    {"adaptive.enabled", "adaptive"},
    {"adaptive.warmup_minibatches", "adaptive_warmup_minibatches"},
    {"adaptive.relative_half_width", "adaptive_relative_half_width"},
    {"adaptive.min_minibatches", "adaptive_min_minibatches"},
}};

struct NotASetting {
  std::string_view field;
  std::string_view why;
};

inline constexpr std::array<NotASetting, 30> kNotSettings = {{
    {"name", "a label"},
    {"repetitions", "repetitions are samples of one configuration"},
    {"workload.model", "part of the workload name (model/data set kind)"},
    {"workload.epochs", "each epoch is a sample of the configuration (the cold epoch 0 is left out)"},
    {"workload.seed", "seeds are samples of one configuration (analyze stats gives the spread over them)"},
    {"workload.evaluate", "scores the validation split after the epoch, untimed"},
    {"workload.target_f1", "a threshold read off the scores (time and energy to target)"},
    {"workload.n_best_size", "SQuAD answer search in the untimed evaluation"},
    {"workload.max_answer_length", "SQuAD answer search in the untimed evaluation"},
    {"workload.distributed.node_rank", "which machine of the world recorded the run"},
    {"workload.distributed.master_addr", "where the ranks meet"},
    {"workload.distributed.master_port", "where the ranks meet"},
    {"workload.distributed.timeout_s", "when a silent rank is given up on"},
    {"workload.inference.min_queries", "how long the measurement lasts"},
    {"workload.inference.min_duration_s", "how long the measurement lasts"},
    {"device.preset_mode", "the power mode: its name and knobs are the key's mode"},
    {"device.cpu_cores", "the power mode: its name and knobs are the key's mode"},
    {"device.cpu_freq_mhz", "the power mode: its name and knobs are the key's mode"},
    {"device.gpu_freq_mhz", "the power mode: its name and knobs are the key's mode"},
    {"device.emc_freq_mhz", "the power mode: its name and knobs are the key's mode"},
    {"device.snap_to_available", "how a frequency is matched; the one applied is the mode's knob"},
    {"device.allow_reboot_modes", "permission to apply a mode"},
    {"device.nvml_gpu", "which GPU: the device the run records"},
    {"measurement.gpio_marker_line", "marks the phases on a line for an external recorder"},
    {"measurement.gpio_chip", "marks the phases on a line for an external recorder"},
    {"measurement.baseload_s", "the idle window measured before the run"},
    {"measurement.meters", "which external meters measured, not how the run ran"},
    {"measurement.minibatch_records", "what is stored, not how the run ran"},
    {"measurement.power_samples", "what is stored, not how the run ran"},
    {"cooldown.timeout_s", "when waiting for the temperature gives up"},
}};

/// True for a column of kSettingColumns: analysis takes it as an axis whatever its suffix.
constexpr bool is_setting_column(std::string_view column) {
  return std::any_of(kSettingColumns.begin(), kSettingColumns.end(),
                     [column](const SettingColumn& s) { return s.column == column; });
}

}  // namespace jetchar::results::schema
