// The SQLite schema of the results store (results.db), written once: the store's writer
// (results/store.cpp) creates and migrates to it, the analysis reader
// (analysis/results_store_reader.cpp) reads stores of it and of older versions, and the tests
// build stores from it. It lives beside the Protobuf schemas because it is the other half of what
// a result is recorded as, and because both experiments/ and analysis/ link this target.
#pragma once

#include <array>
#include <string_view>
#include <utility>

namespace jetchar::results::schema {

/// The version the writer stamps into meta.schema_version; older stores are migrated when opened.
inline constexpr int kResultsStoreSchemaVersion = 10;

/// Table meta: key/value pairs, among them schema_version. Created first, on its own, so that a
/// store's version can be read before the rest of the schema is created or migrated.
inline constexpr std::string_view kResultsStoreMetaTable =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)";

// Schema version 10 added table phase_steps: the loss of every optimizer step of each phase
// (PhaseResult.step_loss); a migrated store gains the empty table.
// Schema version 9 added epochs.phase and table run_phases: a phased pretraining run's phase of
// each epoch (0 without phases) and each phase's figures (RunResult.phases); a migrated store's
// epochs are phase 0 and its run_phases empty.
// Schema version 8 added table rank_epochs: a data-parallel run's every rank per epoch
// (RunResult.distributed), empty for a run of one process; a migrated store gains the empty table.
// Schema version 7 added table run_settings: one row per setting that tells runs apart
// (results/schema/setting_columns.h) the run has a value for, so that analysis keys
// configurations on every one of them; and an inference run's query figures at the end of runs
// (latency_*_ms, throughput_samples_per_s, energy_per_query_j, energy_per_query_sample_j: NULL for
// a run without timed queries). A migrated store's rows come from each run's `result`.
// Schema version 6 added the task metrics: epochs.eval_* (scores on the validation split after
// the epoch, fractions 0..1, NULL when not evaluated) and runs.target_f1, target_epoch,
// time_to_target_s, energy_to_target_j, wall_to_target_s (RunResult.target; NULL without a
// target or while it is not reached), at the end of their tables so that a migrated store
// (ALTER TABLE ADD COLUMN) has the columns in the same order as a new one.
// Schema version 5: a run is identified by (sweep, run_id, device_id), so one run id measured on
// two boards of a fleet is two records (two devices), and every table carries device_id ('' for
// a run that recorded no board). Version 4 added runs.device_id (nullable, outside the key);
// version 3 added epochs.start_s; version 2 the adaptive/marker runs columns and the epoch_meters
// table. Older stores are migrated in place when opened (4 -> 5 rebuilds each table with the
// new key; a v4 row's device_id comes from its run, NULL becoming ''). Readers (analysis/) may
// rely on:
//   runs          one row per stored run and board; `result` is the whole RunResult (Protobuf),
//                 the other columns are flat copies for SQL. adaptive_minibatches: minibatches run
//                 when adaptive stopping ended the run early, NULL otherwise; gpio_marker: the
//                 phase-marker line, '' when none. device_id: the physical board
//                 (context.device_id, jetson/discovery/device_identity.h; '' when none was recorded).
//   epochs        one row per epoch of a run (absent measurements are NULL, never 0). start_s:
//                 when the epoch began, seconds after the run began (NULL in migrated rows).
//   epoch_meters  one row per (epoch, external meter): energy_j NULL when a gap touched the epoch
//                 or the meter did not cover it; gap_s = time of the epoch without meter data.
//   minibatches   per-minibatch records when the spec asked for them; energy_j is the board total
//                 over the minibatch's fetch and compute.
//   run_settings  one row per (run, setting) that has a value (results/setting_values.h): setting is
//                 the column name of setting_columns.h, field the spec's dotted path, value its
//                 text (enum names, shortest exact numbers; pretrained is the checkpoint's digest).
//   run_phases    one row per phase of a phased pretraining run (workload.phases): its sequence
//                 length, batch, accumulation, peak learning rate, optimizer steps, samples, time_s
//                 (its epochs' E2E), sequences_per_s, final_loss (its last epoch's) and energy_j
//                 (NULL when an epoch has none); its epochs carry the phase in epochs.phase.
//   phase_steps   one row per optimizer step of a phase: step from 1 within the phase, its loss (the
//                 mean over the step's sequences and, data-parallel, over the ranks; NULL when it is
//                 not a number: a diverged step).
//   rank_epochs   one row per (epoch, rank) of a data-parallel run, as the recording rank gathered
//                 them: samples, stall_s, compute_s, e2e_s, allreduce_s (buckets' launch to
//                 completion, summed), exposed_communication_s (waited after the backward) and
//                 allreduce_bytes; its run row's epochs hold the world's samples.
//   power_samples every power sample of the run when the spec asked for them: t_s in seconds
//                 after the run began (onboard clock), one row per channel and sample (a failed
//                 read has none); onboard rails by name, external meters as "protocol:device".
// A child row belongs to the run with the same (sweep, run_id, device_id).
inline constexpr const char* kResultsStoreSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, repetition INTEGER NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL,
  model TEXT, dataset TEXT, task TEXT, batch_size INTEGER, accumulate INTEGER, workers INTEGER,
  cache TEXT, power_mode TEXT, cpu_cores INTEGER, cpu_freq_mhz REAL, gpu_freq_mhz REAL, emc_freq_mhz REAL,
  board_kind TEXT, board_model TEXT, simulated INTEGER, medium TEXT, energy_source TEXT,
  started_utc TEXT, duration_s REAL,
  result BLOB NOT NULL,
  adaptive_minibatches INTEGER, gpio_marker TEXT, device_id TEXT NOT NULL DEFAULT '',
  target_f1 REAL, target_epoch INTEGER, time_to_target_s REAL, energy_to_target_j REAL, wall_to_target_s REAL,
  latency_avg_ms REAL, latency_p50_ms REAL, latency_p90_ms REAL, latency_p95_ms REAL, latency_p99_ms REAL,
  latency_max_ms REAL, throughput_samples_per_s REAL, energy_per_query_j REAL, energy_per_query_sample_j REAL,
  PRIMARY KEY (sweep, run_id, device_id));
CREATE TABLE IF NOT EXISTS epochs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, e2e_s REAL, samples INTEGER, minibatches INTEGER,
  loss REAL, accuracy REAL, energy_j REAL, incremental_energy_j REAL, energy_per_sample_j REAL,
  average_power_w REAL, residency_before REAL, residency_after REAL, read_bytes INTEGER, read_ios INTEGER,
  start_s REAL, device_id TEXT NOT NULL DEFAULT '',
  eval_loss REAL, eval_accuracy REAL, eval_entity_precision REAL, eval_entity_recall REAL, eval_entity_f1 REAL,
  eval_exact_match REAL, eval_squad_f1 REAL, phase INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sweep, run_id, device_id, epoch));
CREATE TABLE IF NOT EXISTS epoch_meters (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, meter TEXT NOT NULL,
  energy_j REAL, average_power_w REAL, readings INTEGER NOT NULL, gap_s REAL NOT NULL,
  device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id, epoch, meter));
CREATE TABLE IF NOT EXISTS minibatches (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, idx INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, energy_j REAL, loss REAL, device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id, epoch, idx));
CREATE TABLE IF NOT EXISTS power_samples (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, t_s REAL NOT NULL, channel TEXT NOT NULL, power_w REAL NOT NULL,
  device_id TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS power_samples_run ON power_samples (sweep, run_id, device_id);
CREATE TABLE IF NOT EXISTS run_phases (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, device_id TEXT NOT NULL DEFAULT '', phase INTEGER NOT NULL,
  sequence_length INTEGER NOT NULL, batch_size INTEGER NOT NULL, accumulate INTEGER NOT NULL,
  learning_rate REAL NOT NULL, steps INTEGER NOT NULL, samples INTEGER NOT NULL, time_s REAL NOT NULL,
  sequences_per_s REAL NOT NULL, final_loss REAL, energy_j REAL,
  PRIMARY KEY (sweep, run_id, device_id, phase));
CREATE TABLE IF NOT EXISTS phase_steps (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, device_id TEXT NOT NULL DEFAULT '', phase INTEGER NOT NULL,
  step INTEGER NOT NULL, loss REAL,
  PRIMARY KEY (sweep, run_id, device_id, phase, step));
CREATE TABLE IF NOT EXISTS rank_epochs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, device_id TEXT NOT NULL DEFAULT '', epoch INTEGER NOT NULL,
  rank INTEGER NOT NULL, samples INTEGER NOT NULL, stall_s REAL NOT NULL, compute_s REAL NOT NULL, e2e_s REAL NOT NULL,
  allreduce_s REAL NOT NULL, exposed_communication_s REAL NOT NULL, allreduce_bytes INTEGER NOT NULL,
  PRIMARY KEY (sweep, run_id, device_id, epoch, rank));
CREATE TABLE IF NOT EXISTS run_settings (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, device_id TEXT NOT NULL DEFAULT '',
  setting TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (sweep, run_id, device_id, setting));
)sql";

/// Table mode_predictions: an adaptive-profiling sweep's predicted time, power and energy for every
/// power mode of the sweep, with interval bounds (results/mode_predictions_store.h documents
/// the columns). Created by the first sweep that stores predictions; stores without it read as
/// before, so it does not change the schema version.
inline constexpr std::string_view kModePredictionsTable =
    "CREATE TABLE IF NOT EXISTS mode_predictions (sweep TEXT NOT NULL, mode TEXT NOT NULL, cpu_cores INTEGER, "
    "cpu_freq_khz INTEGER, gpu_freq_khz INTEGER, emc_freq_khz INTEGER, profiled INTEGER NOT NULL, "
    "time_s REAL NOT NULL, time_low_s REAL NOT NULL, time_high_s REAL NOT NULL, "
    "power_w REAL, power_low_w REAL, power_high_w REAL, "
    "energy_j REAL, energy_low_j REAL, energy_high_j REAL, measured_time_s REAL, measured_power_w REAL, "
    "level REAL NOT NULL, time_form TEXT, power_form TEXT, modelled INTEGER NOT NULL, PRIMARY KEY (sweep, mode))";

/// Table mode_choices: the mode an adaptive-profiling sweep with an objective chose over every
/// mode of the sweep (results/mode_predictions_store.h documents the columns); created and read
/// like mode_predictions, so it does not change the schema version either.
inline constexpr std::string_view kModeChoicesTable =
    "CREATE TABLE IF NOT EXISTS mode_choices (sweep TEXT PRIMARY KEY, budget TEXT NOT NULL, confidence REAL NOT NULL, "
    "mode TEXT, measured INTEGER NOT NULL, eligible INTEGER NOT NULL, modes INTEGER NOT NULL, "
    "time_s REAL, energy_j REAL, expected_regret_pct REAL, within_one_pct_probability REAL)";

/// The columns version 6 added, per table, in their order (the 5 -> 6 migration adds them).
inline constexpr std::array<std::pair<const char*, const char*>, 5> kResultsStoreV6RunColumns = {{
    {"target_f1", "REAL"},
    {"target_epoch", "INTEGER"},
    {"time_to_target_s", "REAL"},
    {"energy_to_target_j", "REAL"},
    {"wall_to_target_s", "REAL"},
}};
inline constexpr std::array<std::pair<const char*, const char*>, 7> kResultsStoreV6EpochColumns = {{
    {"eval_loss", "REAL"},
    {"eval_accuracy", "REAL"},
    {"eval_entity_precision", "REAL"},
    {"eval_entity_recall", "REAL"},
    {"eval_entity_f1", "REAL"},
    {"eval_exact_match", "REAL"},
    {"eval_squad_f1", "REAL"},
}};

/// The epochs column version 9 added (the 8 -> 9 migration adds it).
inline constexpr std::array<std::pair<const char*, const char*>, 1> kResultsStoreV9EpochColumns = {{
    {"phase", "INTEGER NOT NULL DEFAULT 0"},
}};

/// The runs columns version 7 added, in their order (the 6 -> 7 migration adds them); the names are
/// the export's.
inline constexpr std::array<std::pair<const char*, const char*>, 9> kResultsStoreV7RunColumns = {{
    {"latency_avg_ms", "REAL"},
    {"latency_p50_ms", "REAL"},
    {"latency_p90_ms", "REAL"},
    {"latency_p95_ms", "REAL"},
    {"latency_p99_ms", "REAL"},
    {"latency_max_ms", "REAL"},
    {"throughput_samples_per_s", "REAL"},
    {"energy_per_query_j", "REAL"},
    {"energy_per_query_sample_j", "REAL"},
}};

/// The tables kResultsStoreSchema creates, parents first.
inline constexpr std::array<const char*, 9> kResultsStoreTables = {"runs",        "epochs",        "epoch_meters",
                                                                   "minibatches", "power_samples", "run_settings",
                                                                   "rank_epochs", "run_phases",    "phase_steps"};

}  // namespace jetchar::results::schema
