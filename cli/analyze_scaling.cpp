// `jetchar analyze scaling RESULTS...`: each training configuration measured at several world
// sizes (data-parallel ranks), with its throughput, scaling efficiency and energy per sample at
// each (analysis/scaling.h).
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/config_groups.h"
#include "analysis/results_file.h"
#include "analysis/scaling.h"
#include "cli/analyze_options.h"

namespace jetchar::cli {
namespace {

using namespace jetchar::analysis;

nlohmann::json curve_json(const ScalingCurve& curve) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : curve.points) {
    points.push_back({{"world_size", p.world_size},
                      {"epochs", p.epochs},
                      {"samples_per_s", p.samples_per_s},
                      {"efficiency", p.efficiency},
                      {"epoch_time_s", optional_json(p.epoch_time_s)},
                      {"energy_per_sample_j", optional_json(p.energy_per_sample_j)},
                      {"exposed_communication_share", optional_json(p.exposed_share)}});
  }
  return {{"workload", curve.key.workload},
          {"mode", curve.key.mode.label()},
          {"axes", axes_json(curve.key.axes)},
          {"scaling", to_string(curve.kind)},
          {"points", points}};
}

void run_scaling(const AnalyzeOptions& o) {
  std::vector<RunRecord> records;
  for (const auto& results : o.compared) {
    auto more = load_results(results);
    records.insert(records.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  const auto curves = scaling_curves(records);
  if (curves.empty()) {
    std::set<std::int64_t> worlds;
    for (const auto& r : records) worlds.insert(world_size_of(r));
    throw std::invalid_argument(fmt::format(
        "no training configuration was measured at two world sizes (world sizes here: {}); scaling needs the same "
        "workload and settings at several nproc_per_node x nnodes (an axis over workload.distributed.nproc_per_node)",
        fmt::join(worlds, ", ")));
  }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : curves) out.push_back(curve_json(c));
    print(out.dump(2) + "\n");
    return;
  }
  std::vector<ConfigKey> keys;
  for (const auto& c : curves) keys.push_back(c.key);
  const auto shown = varying_axes(keys);
  std::string out = fmt::format(
      "warm epochs (epoch 0 left out where later ones exist); efficiency: samples/s per rank against the smallest "
      "world's; weak scaling keeps the batch per rank, strong the global batch\n");
  for (const auto& c : curves) {
    const std::string axes = axes_label(c.key, shown);
    const auto batch = c.key.axes.find(c.kind == ScalingKind::kWeak ? "batch" : "global_batch");
    out += fmt::format("\n{} | {}{} ({} scaling{})\n", c.key.workload, c.key.mode.label(),
                       axes.empty() ? "" : " | " + axes, to_string(c.kind),
                       batch == c.key.axes.end()      ? std::string()
                       : c.kind == ScalingKind::kWeak ? fmt::format(": {} samples per rank", batch->second)
                                                      : fmt::format(": {} samples per global step", batch->second));
    out += fmt::format("  {:>5} {:>6} {:>12} {:>10} {:>12} {:>10} {:>10}\n", "ranks", "epochs", "samples/s",
                       "efficiency", "epoch s", "J/sample", "exposed %");
    for (const auto& p : c.points) {
      out += fmt::format("  {:>5} {:>6} {:>12.1f} {:>10.3f} {:>12} {:>10} {:>10}\n", p.world_size, p.epochs,
                         p.samples_per_s, p.efficiency, opt(p.epoch_time_s), opt(p.energy_per_sample_j),
                         p.exposed_share ? fmt::format("{:.1f}", *p.exposed_share * 100) : std::string("-"));
    }
  }
  print(out);
}

}  // namespace

void add_scaling_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o) {
  auto* scaling = analyze.add_subcommand(
      "scaling",
      "Data-parallel scaling: each training configuration at several world sizes, with samples/s, scaling efficiency "
      "and energy per sample (weak: per-rank batch fixed; strong: global batch fixed)");
  scaling
      ->add_option("results", o->compared,
                   "Results directories, stores or exports holding runs at several world sizes "
                   "(workload.distributed.nproc_per_node x nnodes; a run without them has one rank)")
      ->required()
      ->check(CLI::ExistingPath);
  scaling->add_flag("--json", o->json, "JSON on stdout: per curve every world size's figures");
  scaling->callback([o] { run_scaling(*o); });
}

}  // namespace jetchar::cli
