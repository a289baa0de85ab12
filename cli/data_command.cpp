// `jetchar data inspect|cache|bench`: what a data set is and where it lives, its page-cache state,
// and how fast the pipeline delivers it (samples/s and fetch stall per worker count).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "loaders/data_path.h"
#include "loaders/dataset_spec.h"
#include "loaders/pipeline.h"
#include "loaders/transform.h"
#include "sysfs/page_cache.h"
#include "sysfs/root.h"
#include "sysfs/storage_medium.h"

namespace {

using namespace jetchar;

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string percent(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f} %", *fraction * 100.0) : "n/a";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (auto dim : shape) text += fmt::format("{}{}", text.empty() ? "" : "x", dim);
  return text.empty() ? "scalar" : text;
}

std::string medium_text(const std::filesystem::path& path) {
  try {
    const auto storage = sysfs::storage_of_path(sysfs::Root("/"), path);
    std::string text = fmt::format("{} ({})", sysfs::to_string(storage.medium), storage.label);
    if (!storage.device_name.empty()) text += fmt::format(", device {}", storage.device_name);
    return text;
  } catch (const std::exception& e) {
    return fmt::format("unknown ({})", e.what());
  }
}

struct InspectOptions {
  std::string dataset;
  std::optional<std::string> transform;
};

void run_inspect(const InspectOptions& options) {
  const loaders::DatasetSpec spec = loaders::resolve_dataset_spec(options.dataset);
  const auto dataset = loaders::open_dataset(spec, options.transform);
  const loaders::DatasetInfo& info = dataset->info();
  fmt::print("data set     {}\n", info.name);
  fmt::print("spec         {}\n", spec.text);
  fmt::print("format       {}\n", info.format);
  fmt::print("root         {}\n", info.root.empty() ? "-" : info.root.string());
  fmt::print("samples      {}\n", dataset->size());
  std::string classes;
  for (std::size_t i = 0; i < std::min<std::size_t>(info.classes.size(), 10); ++i) {
    classes += fmt::format("{}{}", i ? ", " : "", info.classes[i]);
  }
  if (info.classes.size() > 10) classes += ", ...";
  fmt::print("classes      {}{}\n", info.classes.size(), classes.empty() ? "" : fmt::format(" ({})", classes));
  fmt::print("sample       input {} {}, target {}\n",
             info.layout.input_type == loaders::InputType::kFloat32 ? "float32" : "int64",
             shape_text(info.layout.input_shape), shape_text(info.layout.target_shape));
  const std::string transform = options.transform ? *options.transform : spec.default_transform();
  fmt::print("transform    {}\n", transform.empty() ? "-" : transform);
  fmt::print("files        {}\n", info.files.size());
  fmt::print("bytes        {} ({})\n", info.bytes, human_bytes(static_cast<double>(info.bytes)));
  if (!info.root.empty()) fmt::print("medium       {}\n", medium_text(info.root));
  if (!info.files.empty()) {
    const auto residency = sysfs::page_residency(info.files);
    fmt::print("residency    {} ({} of {} pages in the page cache)\n", percent(residency.resident_fraction()),
               residency.resident_pages, residency.total_pages);
  }
}

struct CacheOptions {
  bool residency = false;
  bool evict = false;
  bool drop = false;
  std::vector<std::string> paths;
};

// Files of a data set spec, or the paths themselves (directories are walked by sysfs).
std::vector<std::filesystem::path> files_of(const std::string& text) {
  if (std::filesystem::exists(text)) return {std::filesystem::path(text)};
  const auto dataset = loaders::open_dataset(loaders::resolve_dataset_spec(text));
  return dataset->info().files;
}

void run_cache(const CacheOptions& options) {
  const int actions = int{options.residency} + int{options.evict} + int{options.drop};
  if (actions != 1) throw cli::UsageError("give exactly one of --residency, --evict, --drop");
  if (options.drop) {
    sysfs::drop_page_cache(sysfs::Root("/"));
    fmt::print("dropped the page cache (sync; drop_caches = 3)\n");
  }
  if ((options.residency || options.evict) && options.paths.empty()) {
    throw cli::UsageError("--residency and --evict need a PATH or data set spec");
  }
  for (const auto& path : options.paths) {
    const auto files = files_of(path);
    if (options.evict) {
      const auto summary = sysfs::evict_files(files);
      fmt::print("{}: evicted {} files, {}\n", path, summary.files, human_bytes(static_cast<double>(summary.bytes)));
    }
    const auto residency = sysfs::page_residency(files);
    fmt::print("{}: residency {} ({} of {} pages, {} of {}) in {} files\n", path,
               percent(residency.resident_fraction()), residency.resident_pages, residency.total_pages,
               human_bytes(static_cast<double>(residency.resident_bytes)),
               human_bytes(static_cast<double>(residency.total_bytes)), residency.files);
  }
}

struct BenchOptions {
  std::string dataset;
  std::optional<std::string> transform;
  int workers = 0;
  std::int64_t batch = 16;
  int prefetch = 2;
  int epochs = 1;
  std::uint64_t seed = 0;
  bool no_shuffle = false;
  bool drop_last = false;
  bool pin_memory = false;
  bool evict = false;
};

void run_bench(const BenchOptions& options) {
  const loaders::DatasetSpec spec = loaders::resolve_dataset_spec(options.dataset);
  std::shared_ptr<const loaders::Dataset> dataset = loaders::open_dataset(spec, options.transform);
  loaders::PipelineOptions pipeline_options;
  pipeline_options.batch_size = options.batch;
  pipeline_options.num_workers = options.workers;
  pipeline_options.prefetch_factor = options.prefetch;
  pipeline_options.seed = options.seed;
  pipeline_options.shuffle = !options.no_shuffle;
  pipeline_options.drop_last = options.drop_last;
  pipeline_options.pin_memory = options.pin_memory;
  loaders::Pipeline pipeline(dataset, pipeline_options);
  const auto& info = dataset->info();
  auto monitor = std::make_shared<loaders::DataPathMonitor>(sysfs::Root("/"), info.files, info.root);
  pipeline.attach_data_path(monitor);
  if (options.evict && !info.files.empty()) sysfs::evict_files(info.files);
  fmt::print(
      "{}: {} samples, input {}, {} workers, batch {}, prefetch {}, transform {}, medium {}{}\n", info.name,
      dataset->size(), shape_text(info.layout.input_shape), options.workers, options.batch, options.prefetch,
      options.transform ? *options.transform : (spec.default_transform().empty() ? "-" : spec.default_transform()),
      monitor->medium_name(),
      options.pin_memory && !pipeline.pinned() ? " (pin_memory asked: no CUDA, not pinned)" : "");
  fmt::print("{:>5} {:>8} {:>12} {:>10} {:>10} {:>10} {:>10} {:>12} {:>9} {:>9} {:>12}\n", "epoch", "batches",
             "samples/s", "wall s", "stall s", "p50 ms", "max ms", "busy s", "res.pre", "res.post", "disk read");
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    pipeline.start_epoch(epoch);
    while (pipeline.next()) {
    }
    const loaders::EpochStats& stats = pipeline.epoch_stats();
    std::vector<std::int64_t> waits = stats.batch_wait_ns;
    std::sort(waits.begin(), waits.end());
    std::int64_t busy = 0;
    for (auto b : stats.worker_busy_ns) busy += b;
    std::string disk = "n/a";
    std::optional<double> before, after;
    if (stats.data_path) {
      before = stats.data_path->residency_before;
      after = stats.data_path->residency_after;
      if (stats.data_path->io) {
        disk = fmt::format("{} {:.0f}/s", human_bytes(static_cast<double>(stats.data_path->io->bytes_read)),
                           stats.data_path->io->read_iops);
      }
    }
    fmt::print("{:>5} {:>8} {:>12.1f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>12.3f} {:>9} {:>9} {:>12}\n", epoch,
               stats.batches, stats.samples_per_s(), stats.wall_ns / 1e9, stats.stall_ns / 1e9,
               waits.empty() ? 0.0 : waits[waits.size() / 2] / 1e6, waits.empty() ? 0.0 : waits.back() / 1e6,
               busy / 1e9, percent(before), percent(after), disk);
    std::fflush(stdout);
  }
}

void add_data_command(CLI::App& app) {
  CLI::App& data = cli::command_group(app, "data", "Data sets: inspect, page cache, pipeline throughput");
  std::string kinds;
  for (const auto& [name, description] : loaders::dataset_kinds())
    kinds += fmt::format("\n  {:<14}{}", name, description);
  std::string transforms;
  for (const auto& [name, description] : loaders::Transform::known_names()) {
    transforms += fmt::format("\n  {:<16}{}", name, description);
  }
  const std::string dataset_help = "KIND[/SPLIT]:PATH[?KEY=VALUE&...] or a PATH whose kind is detected. Kinds:" + kinds;
  const std::string transform_help =
      "Transform: a name or comma-separated steps (resize=S|HxW, center-crop=S, random-crop=S[:PAD], "
      "random-resized-crop=S, hflip[=P], normalize=M[:M..]/S[:S..], cutout=L). Names:" +
      transforms;

  auto inspect_options = std::make_shared<InspectOptions>();
  CLI::App* inspect = data.add_subcommand("inspect", "Format, samples, classes, shape, bytes, medium and residency");
  inspect->add_option("dataset", inspect_options->dataset, dataset_help)->required();
  inspect->add_option("--transform", inspect_options->transform, transform_help);
  inspect->callback([inspect_options] { run_inspect(*inspect_options); });

  auto cache_options = std::make_shared<CacheOptions>();
  CLI::App* cache = data.add_subcommand("cache", "Page cache: residency of a data set, evict its files, or drop all");
  cache->add_flag("--residency", cache_options->residency, "Share of the files' pages in the page cache (mincore)");
  cache->add_flag("--evict", cache_options->evict, "Evict the files (posix_fadvise DONTNEED; no root needed)");
  cache->add_flag("--drop", cache_options->drop, "sync and drop the whole page cache (drop_caches = 3; needs root)");
  cache->add_option("paths", cache_options->paths, "Files, directories or data set specs");
  cache->callback([cache_options] { run_cache(*cache_options); });

  auto bench_options = std::make_shared<BenchOptions>();
  CLI::App* bench = data.add_subcommand("bench", "Pipeline throughput (samples/s) and fetch stall per epoch");
  bench->add_option("--dataset", bench_options->dataset, dataset_help)->required();
  bench->add_option("--workers", bench_options->workers, "Worker threads (0 = load in the consumer thread)")
      ->check(cli::between(0, 256, "worker threads"));
  bench->add_option("--batch", bench_options->batch, "Batch size")
      ->check(cli::between(1, 1 << 20, "samples per batch"));
  bench->add_option("--transform", bench_options->transform, transform_help);
  bench->add_option("--epochs", bench_options->epochs, "Epochs")->check(cli::between(1, 100000, "epochs"));
  bench->add_option("--prefetch", bench_options->prefetch, "Batches in flight per worker (prefetch_factor)")
      ->check(cli::between(1, 1024, "batches per worker"));
  bench->add_option("--seed", bench_options->seed, "Shuffle and augmentation seed")
      ->check(jetchar::cli::unsigned_integer("a seed"));
  bench->add_flag("--no-shuffle", bench_options->no_shuffle, "Keep the data set order");
  bench->add_flag("--drop-last", bench_options->drop_last, "Drop the last partial batch");
  bench->add_flag("--pin-memory", bench_options->pin_memory,
                  "Pinned batch memory (only with CUDA; recorded otherwise)");
  bench->add_flag("--evict", bench_options->evict, "Evict the data set's files from the page cache first (cold start)");
  bench->callback([bench_options] { run_bench(*bench_options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(30, add_data_command);
