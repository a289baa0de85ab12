#include "cli/analyze_options.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "analysis/results_file.h"
#include "cli/exit_code.h"

namespace jetchar::cli {

using namespace jetchar::analysis;

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

double latency_seconds(const std::string& text, std::string_view option) {
  std::size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  const std::string unit = text.substr(end);
  const double scale = unit.empty() || unit == "ms" ? 1e-3 : unit == "s" ? 1.0 : unit == "us" ? 1e-6 : -1;
  if (end == 0 || scale < 0 || !std::isfinite(value) || value < 0) {
    throw UsageError(
        fmt::format("{} '{}' is not a latency; give a number >= 0 with ms, s or us (a bare number is ms), e.g. 50ms",
                    option, text));
  }
  return value * scale;
}

std::vector<ConfigPoint> load_points(const std::string& file, const std::string& latency) {
  const auto percentile = parse_latency_percentile(latency);
  if (!percentile) {
    throw UsageError(fmt::format("--latency '{}' is not valid; use avg, p50, p90, p95, p99 or max", latency));
  }
  auto records = load_results(file);
  auto points = aggregate(records, {.latency = *percentile});
  if (points.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: no OK run with an epoch time or a query latency ({}); nothing to analyse", file, latency));
  }
  return points;
}

QuerySpeed query_speed(const AnalyzeOptions& o) {
  const auto speed = parse_query_speed(o.speed);
  if (!speed) throw UsageError(fmt::format("--speed '{}' is not valid; use latency or throughput", o.speed));
  return *speed;
}

QueryEnergy query_energy(const AnalyzeOptions& o) {
  const auto energy = parse_query_energy(o.energy_per);
  if (!energy) throw UsageError(fmt::format("--energy-per '{}' is not valid; use query or sample", o.energy_per));
  return *energy;
}

std::string query_medians_note(QuerySpeed speed, QueryEnergy energy) {
  if (speed == QuerySpeed::kLatency && energy == QueryEnergy::kPerQuery) return kQueryMedians;
  return fmt::format(
      "inference: {} and energy per {} (J/{}, warm-up excluded): medians over repetitions; power = J/query / mean "
      "latency",
      speed == QuerySpeed::kThroughput ? "throughput (samples/s, after warm-up)" : "a query's latency",
      to_string(energy), to_string(energy));
}

std::vector<ConfigPoint> load_points(const AnalyzeOptions& o) {
  const auto percentile = parse_latency_percentile(o.latency);
  if (!percentile) {
    throw UsageError(fmt::format("--latency '{}' is not valid; use avg, p50, p90, p95, p99 or max", o.latency));
  }
  auto points =
      aggregate(load_results(o.results), {.latency = *percentile, .speed = query_speed(o), .energy = query_energy(o)});
  if (points.empty()) {
    throw std::invalid_argument(fmt::format("{}: no OK run with an epoch time or a query {} ({}); nothing to analyse",
                                            o.results, o.speed == "throughput" ? "throughput" : "latency", o.latency));
  }
  return points;
}

std::vector<analysis::ModeGroup> load_mode_groups(const std::string& file, const std::string& latency) {
  auto groups = analysis::mode_groups(load_points(file, latency));
  if (groups.empty()) throw std::invalid_argument(fmt::format("{}: no configuration has all four knobs", file));
  return groups;
}

bool with_auto(const std::string& name) { return name == "all" || name == kAuto; }

std::string opt(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json axes_json(const std::map<std::string, std::string>& axes) {
  auto out = nlohmann::json::object();
  for (const auto& [k, v] : axes) out[k] = v;
  return out;
}

nlohmann::json knobs_json(const analysis::PowerMode& m) {
  return {{"mode", m.name},
          {"cpu_cores", *m.cpu_cores},
          {"cpu_freq_khz", *m.cpu_freq_khz},
          {"gpu_freq_khz", *m.gpu_freq_khz},
          {"emc_freq_khz", *m.emc_freq_khz}};
}

}  // namespace jetchar::cli
