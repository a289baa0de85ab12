// Predicted power modes beside a sweep's runs: an adaptive-profiling sweep
// (`adaptive_profile { ... }` in the sweep spec) profiles a few of its power modes and stores, in
// the same results.db, the predictor's time, power and energy for every mode of the sweep with
// the interval bounds at the stated level, the profiled ones marked and their measured values
// beside. One table, read with plain SQL as the rest of the store (analysis, pandas):
//
//   mode_predictions(sweep TEXT, mode TEXT, cpu_cores INTEGER, cpu_freq_khz INTEGER,
//                    gpu_freq_khz INTEGER, emc_freq_khz INTEGER, profiled INTEGER (0/1),
//                    time_s, time_low_s, time_high_s REAL,
//                    power_w, power_low_w, power_high_w REAL (NULL without power),
//                    energy_j, energy_low_j, energy_high_j REAL (NULL without power),
//                    measured_time_s, measured_power_w REAL (profiled modes; NULL otherwise),
//                    level REAL, time_form TEXT, power_form TEXT, modelled INTEGER (0/1: the times
//                    come from a simulated board's time model),
//                    PRIMARY KEY (sweep, mode))
//
// time_s is the epoch time (the warm-epoch median E2E the analysis uses), power_w the average
// power over the epoch, energy_j their product's prediction.
//
// A sweep whose adaptive_profile has an objective also stores the mode it chose over every mode
// (analysis/predicted_choice.h), one row per sweep:
//
//   mode_choices(sweep TEXT PRIMARY KEY, budget TEXT ("least energy with epoch time <= 0.5 s"),
//                confidence REAL, mode TEXT (NULL: no mode met the budget at that confidence),
//                measured INTEGER (0/1: the chosen mode was profiled), eligible INTEGER, modes INTEGER,
//                time_s, energy_j REAL (the chosen mode's epoch time and energy: measured or predicted),
//                expected_regret_pct REAL, within_one_pct_probability REAL (NULL without a mode))
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace jetchar::results {

struct StoredModePrediction {
  std::string mode;  ///< the mode's label ("8c/cpu2202/gpu1300/emc3199MHz")
  int cpu_cores = 0;
  std::int64_t cpu_freq_khz = 0, gpu_freq_khz = 0, emc_freq_khz = 0;
  bool profiled = false;
  double time_s = 0, time_low_s = 0, time_high_s = 0;
  std::optional<double> power_w, power_low_w, power_high_w;
  std::optional<double> energy_j, energy_low_j, energy_high_j;
  std::optional<double> measured_time_s, measured_power_w;
  double level = 0.9;
  std::string time_form, power_form;
  bool modelled = false;

  bool operator==(const StoredModePrediction&) const = default;
};

/// One row of mode_choices.
struct StoredModeChoice {
  std::string budget;  ///< the objective in words (analysis::Budget::describe)
  double confidence = 0.9;
  std::optional<std::string> mode;  ///< the chosen mode's label; nullopt when none was eligible
  bool measured = false;
  std::int64_t eligible = 0, modes = 0;
  std::optional<double> time_s, energy_j;
  std::optional<double> expected_regret_pct, within_one_pct_probability;

  bool operator==(const StoredModeChoice&) const = default;
};

/// What one sweep stored: its predictions (in mode order) and its choice.
struct SweepPredictions {
  std::vector<StoredModePrediction> predictions;
  std::optional<StoredModeChoice> choice;

  bool operator==(const SweepPredictions&) const = default;
};

/// Replaces `sweep`'s predictions and its choice (none: the sweep had no objective) in the store
/// file `store` (a results.db the sweep writes) in one transaction. Throws std::runtime_error
/// naming the file when it cannot.
void save_mode_predictions(const std::filesystem::path& store, const std::string& sweep,
                           const std::vector<StoredModePrediction>& predictions,
                           const std::optional<StoredModeChoice>& choice = std::nullopt);

/// `sweep`'s predictions, in mode order; empty when the store has none (or no such table).
std::vector<StoredModePrediction> load_mode_predictions(const std::filesystem::path& store, const std::string& sweep);

/// `sweep`'s choice; nullopt when the store has none (or no such table).
std::optional<StoredModeChoice> load_mode_choice(const std::filesystem::path& store, const std::string& sweep);

/// Every sweep's predictions and choice in the store file `store`, by sweep; empty when it has none.
/// Throws std::runtime_error naming the file when it cannot read them.
std::map<std::string, SweepPredictions> load_all_mode_predictions(const std::filesystem::path& store);

/// Replaces `sweep`'s predictions and choice in `db` inside the caller's transaction (what
/// save_mode_predictions does in its own; `results merge` writes them with the runs in one).
void write_mode_predictions(SQLite::Database& db, const std::string& sweep, const SweepPredictions& stored);

}  // namespace jetchar::results
