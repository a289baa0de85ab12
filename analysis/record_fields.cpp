#include "analysis/record_fields.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "results/schema/setting_columns.h"

namespace jetchar::analysis {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

double number(std::string_view text, const InputLocation& where, std::string_view what) {
  auto value = parse_number(text);
  if (!value) throw InputError(where, fmt::format("'{}' is not a number; expected {}", text, what));
  return *value;
}

double non_negative(std::string_view text, const InputLocation& where, std::string_view what) {
  double value = number(text, where, what);
  if (value < 0) throw InputError(where, fmt::format("{} is negative; expected {}", text, what));
  return value;
}

std::int64_t whole(std::string_view text, const InputLocation& where, std::string_view what, double min,
                   double max = 9.0e15) {
  double value = number(text, where, what);
  if (value != std::floor(value) || value < min || value > max) {
    throw InputError(where, fmt::format("'{}' is not valid; expected {}", text, what));
  }
  return static_cast<std::int64_t>(value);
}

// A frequency column in Hz, kHz or MHz, stored in kHz.
bool set_frequency(std::optional<std::int64_t>& target, std::string_view column, std::string_view prefix,
                   std::string_view text, const InputLocation& where) {
  if (!column.starts_with(prefix)) return false;
  std::string_view unit = column.substr(prefix.size());
  double scale = 0;
  if (unit == "hz") scale = 1e-3;
  else if (unit == "khz") scale = 1;
  else if (unit == "mhz") scale = 1e3;
  else return false;
  double value = number(text, where, fmt::format("a frequency in {} > 0", unit));
  // 1e9 kHz = 1 THz: anything above is a unit mix-up, and would overflow the integer kHz.
  if (value <= 0 || value * scale > 1e9) {
    throw InputError(where, fmt::format("{} is not a frequency; expected a value > 0 and below 1 THz", text));
  }
  target = static_cast<std::int64_t>(std::llround(value * scale));
  return true;
}

constexpr std::array kUnitSuffixes = {"_s",  "_ms",    "_us",  "_ns",    "_j",     "_mj", "_w",
                                      "_mw", "_bytes", "_pct", "_ratio", "_per_s", "_c"};

bool has_unit_suffix(std::string_view column) {
  for (std::string_view suffix : kUnitSuffixes) {
    if (column.size() > suffix.size() && column.ends_with(suffix)) return true;
  }
  return false;
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool is_informational_column(std::string_view column) {
  // model and dataset are part of the workload name in `jetchar results export`. How many
  // minibatches an adaptive run measured differs from run to run: as an axis it would split one
  // configuration into one per run.
  constexpr std::array kInfo = {"reason",
                                "started_utc",
                                "hostname",
                                "board",
                                "board_kind",
                                "simulated",
                                "model",
                                "dataset",
                                "l4t",
                                "jetpack",
                                "module",
                                "family",
                                "samples",
                                "minibatches",
                                "loss",
                                "accuracy",
                                "governor",
                                "epoch_start_s",
                                "adaptive_minibatches",
                                "adaptive_basis",
                                "gpio_marker",
                                "eval_loss",
                                "target_epoch",
                                "slowest_rank",
                                "failed_rank"};
  for (std::string_view name : kInfo) {
    if (column == name) return true;
  }
  return false;
}

void set_record_field(RunRecord& record, std::string_view column, std::string_view raw, InputLocation where) {
  std::string_view text = trim(raw);
  if (text.empty()) return;  // missing value
  where.column = std::string(column);
  // A setting that tells runs apart is an axis, whatever its name ends in (sample_rate_hz).
  if (results::schema::is_setting_column(column)) {
    record.axes[std::string(column)] = std::string(text);
    return;
  }
  if (column == "simulated") {
    record.simulated = text == "true" || text == "1";
    return;
  }
  if (column == "samples") {  // an epoch's samples (a data-parallel run's: every rank's)
    record.samples =
        static_cast<std::int64_t>(whole(text, where, "a sample count from 0 to 2^53", 0, 9007199254740992.0));
    return;
  }
  if (column == "phase") {  // a phased pretraining run's epoch: its phase, from 1
    const auto phase = whole(text, where, "a pretraining phase from 0 to 2^31-1", 0, 2147483647.0);
    if (phase > 0) record.metrics["phase"] = static_cast<double>(phase);
    return;
  }
  if (column == "loss") {  // an epoch's training loss, for the report's pages; a diverged one (nan) is left out
    if (const auto loss = parse_number(text)) record.metrics["loss"] = *loss;
    return;
  }
  auto seconds = [&] { return non_negative(text, where, "seconds >= 0"); };
  // A frequency column sets its knob; an informational one describes the run and nothing in the
  // analysis depends on it. No other branch below matches these names.
  if (set_frequency(record.mode.cpu_freq_khz, column, "cpu_freq_", text, where) ||
      set_frequency(record.mode.gpu_freq_khz, column, "gpu_freq_", text, where) ||
      set_frequency(record.mode.emc_freq_khz, column, "emc_freq_", text, where) || is_informational_column(column)) {
    return;
  }

  if (column == "energy_source" || column == "meter") {
    // Names, not axes: each board names its own source, and a configuration spans boards.
    auto& name = column == "meter" ? record.meter : record.energy_source;
    name = std::string(text);
    return;
  }
  if (column == "workload") record.workload = std::string(text);
  else if (column == "mode" || column == "power_mode") record.mode.name = std::string(text);
  else if (column == "cpu_cores")
    record.mode.cpu_cores = static_cast<int>(whole(text, where, "a core count from 1 to 4096", 1, 4096));
  else if (column == "device") record.device = std::string(text);
  else if (column == "board_model") record.board = std::string(text);
  else if (column == "run_id") record.run_id = std::string(text);
  else if (column == "sweep") record.sweep = std::string(text);
  else if (column == "repetition")
    record.repetition = static_cast<int>(whole(text, where, "an integer from 0 to 2^31-1", 0, 2147483647.0));
  else if (column == "epoch")
    record.epoch = static_cast<int>(whole(text, where, "an epoch index from 0 to 2^31-1", 0, 2147483647.0));
  else if (column == "epoch_time_s" || column == "e2e_s") record.epoch_time_s = seconds();
  else if (column == "epoch_energy_j" || column == "energy_j")
    record.epoch_energy_j = non_negative(text, where, "joules >= 0");
  else if (column == "avg_power_w" || column == "average_power_w")
    record.avg_power_w = non_negative(text, where, "watts >= 0");
  else if (column == "stall_s") record.stall_s = seconds();
  else if (column == "compute_s") record.compute_s = seconds();
  else if (column == "throughput_samples_per_s")
    record.throughput_samples_per_s = non_negative(text, where, "samples/s >= 0");
  else if (column.starts_with("latency_") && column.ends_with("_ms")) {
    std::string_view which = column.substr(8, column.size() - 11);
    double ms = non_negative(text, where, "milliseconds >= 0");
    if (which == "avg") record.latency.avg = ms;
    else if (which == "p50") record.latency.p50 = ms;
    else if (which == "p90") record.latency.p90 = ms;
    else if (which == "p95") record.latency.p95 = ms;
    else if (which == "p99") record.latency.p99 = ms;
    else if (which == "max") record.latency.max = ms;
    else record.metrics[std::string(column)] = ms;
  } else if (column == "status") {
    auto status = parse_run_status(text);
    if (!status)
      throw InputError(where, fmt::format("'{}' is not a run status; expected OK, OOM, FAILED or INVALID", text));
    record.status = *status;
  } else if (has_unit_suffix(column)) {
    record.metrics[std::string(column)] = number(text, where, "a number (the column name carries a unit suffix)");
  } else {
    record.axes[std::string(column)] = std::string(text);
  }
}

void check_record(const RunRecord& record, const InputLocation& where) {
  if (record.workload.empty()) throw InputError(where, "the workload is missing; every row needs one");
}

}  // namespace jetchar::analysis
