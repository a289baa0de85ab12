// `jetchar analyze compare RESULTS... [--baseline KIND]`: each configuration measured on two or more
// board kinds, every kind at its fastest and at its least-energy power mode, against a baseline
// kind (analysis/board_comparison.h).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/board_comparison.h"
#include "analysis/config_groups.h"
#include "analysis/energy_source.h"
#include "analysis/results_file.h"
#include "cli/analyze_options.h"
#include "cli/exit_code.h"

namespace jetchar::cli {
namespace {

using namespace jetchar::analysis;

void run_compare(const AnalyzeOptions& o) {
  std::vector<RunRecord> records;
  for (const auto& results : o.compared) {
    auto more = load_results(results);
    records.insert(records.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  const auto energy = parse_energy_source(o.energy);
  if (!energy) throw UsageError(fmt::format("--energy '{}' is not valid; use board or meter", o.energy));
  use_energy_source(records, *energy);
  const auto latency = parse_latency_percentile(o.latency);
  if (!latency)
    throw UsageError(fmt::format("--latency '{}' is not valid; use avg, p50, p90, p95, p99 or max", o.latency));
  ComparisonOptions options;
  options.baseline = o.baseline;
  options.aggregate.latency = *latency;
  const auto comparisons = compare_boards(records, options);
  if (comparisons.empty()) {
    std::set<std::string> kinds;
    for (const auto& r : records) kinds.insert(board_kind_of(r));
    throw std::invalid_argument(
        fmt::format("no configuration was measured on two board kinds (kinds: {}); compare needs the same workload and "
                    "settings on each",
                    fmt::join(kinds, ", ")));
  }
  std::vector<ConfigKey> keys;
  for (const auto& c : comparisons) keys.push_back(c.key);
  const auto shown = varying_axes(keys);
  std::string out =
      "each board kind at its fastest power mode (speed-up: the baseline's time / its time) and at its least-energy "
      "mode (energy: its energy / the baseline's, per epoch or per query, so per sample; perf/W: the inverse)\n";
  out += fmt::format("energy from {}\n", energy_sources_text(energy_sources_by_kind(records, *energy)));
  for (const auto& c : comparisons) {
    const ConfigPoint& any = c.kinds.front().fastest;
    const std::string axes = axes_label(c.key, shown);
    out += fmt::format("\n{}{} ({}; baseline {})\n", c.key.workload, axes.empty() ? "" : " | " + axes,
                       any.query_latency ? fmt::format("{} latency of a query, J/query", to_string(*any.query_latency))
                                         : std::string("warm epoch time, epoch energy"),
                       c.kinds.front().kind);
    out += fmt::format("  {:<40} {:>5}  {:<28} {:>10} {:>8}  {:<28} {:>10} {:>8} {:>8}\n", "board", "modes",
                       "fastest mode", time_header(any), "speed-up", "least-energy mode", energy_header(any),
                       "energy x", "perf/W x");
    for (const auto& f : c.kinds) {
      out += fmt::format("  {:<40} {:>5}  {:<28} {:>10.4g} {:>8.3f}  {:<28} {:>10} {:>8} {:>8}\n", f.kind, f.modes,
                         f.fastest.key.mode.label(), time_value(f.fastest), f.speedup, f.least_energy.key.mode.label(),
                         opt(f.least_energy.energy_j), opt(f.energy_ratio, "{:.3f}"),
                         opt(f.perf_per_watt_ratio, "{:.3f}"));
    }
  }
  print(out);
}

}  // namespace

void add_compare_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o,
                         const std::function<void(CLI::App*)>& latency) {
  auto* compare = analyze.add_subcommand(
      "compare",
      "One configuration on several board kinds (a Jetson and a desktop GPU, two Jetsons): speed-up, energy and "
      "performance per watt against a baseline kind, each kind at its best power mode");
  compare
      ->add_option("results", o->compared,
                   "Results directories, stores or exports (one per board, or a merged fleet); the board kind is each "
                   "run's board model (an export's device column)")
      ->required()
      ->check(CLI::ExistingPath);
  compare->add_option("--baseline", o->baseline,
                      "The board kind the others are measured against (default: the first by name)");
  compare
      ->add_option("--energy", o->energy,
                   "board: each board's own sensors (a Jetson's rails, a GPU's NVML counter); meter: the external "
                   "meter each run's spec configured (at the wall: one boundary for every kind)")
      ->capture_default_str();
  latency(compare);
  compare->callback([o] { run_compare(*o); });
}

}  // namespace jetchar::cli
