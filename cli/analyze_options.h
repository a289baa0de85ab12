// What the subcommands of `jetchar analyze` share: their options (one object, since CLI11 binds
// every subcommand's options to it), the notes every output carries, and how results are loaded.
// Each subcommand's file (analyze_command.cpp, analyze_predict.cpp, analyze_predictions.cpp)
// computes through analysis/ and prints what it returns.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_choice.h"

namespace jetchar::cli {

struct AnalyzeOptions {
  std::string results;
  // stats
  std::string level = "all";
  int resamples = 2000;
  std::uint64_t seed = 1;
  // pareto / choose
  std::vector<std::string> per;
  std::optional<double> max_time_s, max_power_w, max_energy_j, zeus_eta, zeus_max_power_w;
  // inference configurations: the latency they are judged by; choose --max-latency, --min-throughput
  std::string latency = "p99";
  std::optional<std::string> max_latency;
  std::optional<double> min_throughput;
  // stats, pareto, choose: inference configurations' speed (latency or throughput) and energy (per
  // query or per sample; analysis/query_objectives.h)
  std::string speed = "latency";
  std::string energy_per = "query";
  // compare: several results and the kind the others are measured against
  std::vector<std::string> compared;
  std::optional<std::string> baseline;
  std::string energy = "board";           // compare: the boards' own sensors, or their external meters
  double confidence = 0.9;                // choose --modes
  std::string objective = "predictions";  // choose --modes --profile: what the profile aims at
  // fit / predict
  std::string model = "all";
  std::optional<std::size_t> profile;
  std::optional<std::size_t> suggest;  // predict: modes of --modes to profile next
  int folds = 5;
  bool table = false;
  bool json = false;
  double interval_level = 0.9;
  std::string modes;
  // predict --reference: adapt a reference workload's model (analysis/transfer_predictor.h)
  std::string reference, reference_workload, clock_mapping = "absolute";
};

/// Writes `text` to stdout as it is.
void print(const std::string& text);

// Which epochs every figure here comes from (analysis/config_point.h), the same ones `results
// list`, the sweep summary and the report use; each output says so in its header.
inline constexpr const char* kWarmEpochs =
    "epoch time and energy: medians over warm epochs (every epoch after epoch 0; epoch 0 only where a configuration "
    "has no other)";
// The same for inference configurations (runs without epochs), printed where there are any.
inline constexpr const char* kQueryMedians =
    "inference: a query's latency and energy per query (J/query, warm-up excluded): medians over repetitions; "
    "power = J/query / mean latency";

/// kQueryMedians for the speed and energy an inference configuration is judged by (--speed,
/// --energy-per).
std::string query_medians_note(analysis::QuerySpeed speed, analysis::QueryEnergy energy);

// Where fit and predict take each run's knobs from (experiments/mode_readback.h).
inline constexpr const char* kResolvedKnobs =
    "power-mode knobs (cores, CPU/GPU/EMC MHz): as each run read them back from the board (its resolved mode), "
    "not as requested";

/// A --max-latency: "50ms", "0.05s", "500us" or a bare number of milliseconds, in seconds
/// (`analyze choose`, `report`, `infer --latency-bound`); UsageError naming `option` and saying
/// what is valid otherwise.
double latency_seconds(const std::string& text, std::string_view option = "--max-latency");

/// The configurations of a results directory, store or export; std::invalid_argument naming the
/// file when none has an OK run with an epoch time.
/// The configurations of `file` (analysis::aggregate), inference ones judged by `latency` ("p99").
std::vector<analysis::ConfigPoint> load_points(const std::string& file, const std::string& latency = "p99");
/// The configurations of `o.results`, inference ones judged by --latency, --speed and --energy-per.
std::vector<analysis::ConfigPoint> load_points(const AnalyzeOptions& o);
/// --speed and --energy-per; UsageError naming the option, the value and what is valid otherwise.
analysis::QuerySpeed query_speed(const AnalyzeOptions& o);
analysis::QueryEnergy query_energy(const AnalyzeOptions& o);
/// Its groups of one workload at one setting of the other axes (analysis::mode_groups);
/// std::invalid_argument naming the file when no configuration has all four knobs.
/// The groups of `file` that `fit` and `predict` model (analysis::mode_groups): training ones, and
/// inference ones judged by `latency`.
std::vector<analysis::ModeGroup> load_mode_groups(const std::string& file, const std::string& latency = "p99");

// `--model auto` is the mode predictor (analysis/mode_predictor.h): its forms chosen by
// cross-validation, with intervals; the other names are the fixed models of analysis/predictor.h.
inline constexpr const char* kAuto = "auto";

/// Whether `--model` asks for the auto model ("all" is fit's default: predict has one model).
bool with_auto(const std::string& name);

/// `v` in `format`, "-" when absent.
std::string opt(const std::optional<double>& v, const char* format = "{:.4g}");

nlohmann::json optional_json(const std::optional<double>& v);
nlohmann::json axes_json(const std::map<std::string, std::string>& axes);
/// A mode's name and its four knobs (cpu_cores, cpu_freq_khz, gpu_freq_khz, emc_freq_khz); the
/// mode must have them all.
nlohmann::json knobs_json(const analysis::PowerMode& m);

/// `analyze predict` (analyze_predict.cpp); `results` adds the RESULTS argument every subcommand takes.
void add_predict_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o,
                         const std::function<void(CLI::App*)>& results);
/// `analyze choose --modes`: the mode chosen over a modes file from measurements and predictions
/// (analyze_choose_predicted.cpp).
void run_choose_predicted(const AnalyzeOptions& o, const analysis::Budget& budget);
/// `analyze compare` (analyze_compare.cpp); `latency` adds --latency.
void add_compare_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o,
                         const std::function<void(CLI::App*)>& latency);
/// `analyze scaling` (analyze_scaling.cpp).
void add_scaling_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o);
/// `analyze predictions` (analyze_predictions.cpp).
void add_predictions_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o);

}  // namespace jetchar::cli
