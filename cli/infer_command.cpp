// `jetchar infer --model M --batch B ...`: timed inference on synthetic inputs of the model's
// format; prints the latency table (avg, p50, p90, p95, p99, max by nearest rank) and throughput.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "cli/option_checks.h"
#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/inference/inference_runner.h"
#include "experiments/torch_device.h"
#include "sysfs/root.h"

namespace {

struct InferOptions {
  std::string model;
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq_len;
  std::int64_t warmup = 10;
  std::optional<std::int64_t> queries;
  std::optional<double> duration_s;
  std::string precision = "fp32";
  std::string device = "cpu";
  std::optional<int> threads;
  std::optional<std::int64_t> classes;
  std::uint64_t seed = 0;
  std::optional<std::string> pretrained;
  bool json = false;
};

void run_infer(const InferOptions& options) {
  using namespace jetchar::experiments;
  ModelSpec spec = find_model(options.model);
  InferenceConfig config;
  config.device = parse_device(options.device);
  config.batch_size = options.batch;
  config.sequence_length = options.seq_len;
  config.warmup = options.warmup;
  config.min_queries = options.queries;
  config.min_duration_s = options.duration_s;
  config.precision = parse_precision(options.precision);
  config.seed = options.seed;
  config.num_classes = options.classes;
  if (options.threads) {
    if (*options.threads < 1)
      throw std::invalid_argument(fmt::format("--threads {} must be at least 1", *options.threads));
    torch::set_num_threads(*options.threads);
  }
  torch::manual_seed(options.seed);
  std::shared_ptr<Network> model;
  std::optional<PretrainedLoad> pretrained;
  if (options.pretrained) {
    auto loaded = make_pretrained_model(spec, *options.pretrained, options.classes, options.seed);
    model = loaded.network;
    pretrained = loaded.load;
    // Synthetic token ids stay inside the checkpoint's vocabulary.
    spec.vocab_size = loaded.config.vocab_size;
  } else {
    model = make_model(spec, options.classes);
  }
  const jetchar::sysfs::Root root;
  const auto result = run_inference(*model, spec, config, root);
  if (options.json) {
    auto json = to_json(result);
    if (pretrained) json["pretrained"] = to_json(*pretrained);
    fmt::print("{}\n", json.dump(2));
  } else if (result.latency) {
    const auto& l = *result.latency;
    auto ms = [](double ns) { return fmt::format("{:.3f}", ns / 1e6); };
    fmt::print("model {}  batch {}{}  device {}  precision {}  threads {}  warm-up {}\n", result.model,
               result.batch_size, result.sequence_length ? fmt::format("  seq {}", *result.sequence_length) : "",
               result.device, result.precision, result.threads, result.warmup);
    fmt::print("{:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>14}\n", "queries", "avg ms", "p50 ms", "p90 ms",
               "p95 ms", "p99 ms", "max ms", "samples/s");
    fmt::print("{:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>14.1f}\n", l.count, ms(l.avg_ns),
               ms(static_cast<double>(l.p50_ns)), ms(static_cast<double>(l.p90_ns)), ms(static_cast<double>(l.p95_ns)),
               ms(static_cast<double>(l.p99_ns)), ms(static_cast<double>(l.max_ns)), result.samples_per_s);
  }
  if (result.status != RunStatus::kOk) {
    throw std::runtime_error(fmt::format("inference {} with batch {}: {} ({})", spec.name, options.batch,
                                         run_status_name(result.status), result.error));
  }
}

void add_infer_command(CLI::App& app) {
  auto options = std::make_shared<InferOptions>();
  CLI::App* command = app.add_subcommand(
      "infer", "Time inference of a model on synthetic inputs: per-batch latency percentiles and throughput");
  command->add_option("--model", options->model, "Model name (see `jetchar models`)")->required();
  command->add_option("--batch", options->batch, "Samples per query (batch size)")
      ->capture_default_str()
      ->check(jetchar::cli::between(1, 65536, "samples per query"));
  command->add_option("--seq-len", options->seq_len, "Sequence length for BERT-type models (default: 128)")
      ->check(jetchar::cli::between(1, 65536, "tokens"));
  command->add_option("--warmup", options->warmup, "Untimed warm-up queries")
      ->capture_default_str()
      ->check(jetchar::cli::at_least(0, "queries"));
  command
      ->add_option("--queries", options->queries,
                   "Minimum number of timed queries (default 100 unless --duration is given)")
      ->check(jetchar::cli::at_least(1, "queries"));
  command
      ->add_option("--duration", options->duration_s,
                   "Minimum timed duration in seconds (with --queries, both minimums must be met)")
      ->check(jetchar::cli::above(0, "seconds"));
  command->add_option("--precision", options->precision, "fp32, tf32, amp-fp16 (CUDA), bf16")->capture_default_str();
  command->add_option("--device", options->device, "cpu, cuda or cuda:N")->capture_default_str();
  command->add_option("--threads", options->threads, "LibTorch intra-op threads (default: LibTorch's choice)")
      ->check(jetchar::cli::between(1, 1024, "threads"));
  command->add_option("--classes", options->classes, "Output classes (default: the model's)")
      ->check(jetchar::cli::between(1, 1000000, "classes"));
  command->add_option("--seed", options->seed, "Seed of the weights and the synthetic inputs")->capture_default_str();
  command->add_option("--pretrained", options->pretrained,
                      "Hugging Face model folder (config.json, model.safetensors or pytorch_model.bin) whose weights "
                      "a bert-* model runs with");
  command->add_flag("--json", options->json, "Print JSON (with every latency) instead of the table");
  jetchar::cli::add_examples(*command,
                             "Examples:\n"
                             "  jetchar infer --model mobilenetv3-small --batch 4 --queries 10\n"
                             "  jetchar infer --model bert-tiny --batch 8 --seq-len 128 --warmup 2 --queries 10");
  command->callback([options] { run_infer(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(42, add_infer_command);
