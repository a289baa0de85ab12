// LibTorch side of the workload benchmark against PyTorch in Python (bench/workloads_bench.py runs
// both and prints the ratios). For each workload: training steps/s (zero_grad, forward, loss,
// backward, optimizer step on one fixed synthetic batch, as the Python side does) and inference
// latencies (eval, inference mode). Same models, batch, sequence length, precision, device and
// thread count on both sides. On a GPU each step and each query ends with a device synchronize, as
// jetchar's training and inference runners do by default, and precision is applied as they apply
// it (experiments/training/precision.h: autocast around forward and loss, loss scaling for AMP fp16).
#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "experiments/inference/latency_stats.h"
#include "experiments/models/registry.h"
#include "experiments/torch_device.h"
#include "experiments/training/grad_scaler.h"
#include "experiments/training/precision.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace jetchar::experiments;

struct Options {
  int steps = 50;
  int queries = 50;
  int warmup = 5;
  std::int64_t batch = 16;
  std::int64_t sequence_length = 128;
  bool infer_only = false;
  torch::Device device{torch::kCPU};
  Precision precision = Precision::kFp32;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

jetchar::loaders::Batch on_device(jetchar::loaders::Batch batch, const torch::Device& device) {
  for (auto* tensor : {&batch.inputs, &batch.targets, &batch.attention_mask, &batch.token_type_ids}) {
    if (tensor->defined()) *tensor = tensor->to(device);
  }
  return batch;
}

// Training steps/s as jetchar's training loop takes a step (experiments/training/training_runner.cpp).
double train_steps_per_s(const ModelSpec& spec, Network& model, const jetchar::loaders::Batch& batch,
                         const Options& options) {
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (spec.token_input()) {
    optimizer =
        std::make_unique<torch::optim::AdamW>(model.parameters(), torch::optim::AdamWOptions(5e-5).weight_decay(0.01));
  } else {
    optimizer = std::make_unique<torch::optim::SGD>(model.parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  }
  const bool scaled = options.precision == Precision::kAmpFp16;
  GradScaler scaler;
  const auto parameters = model.parameters();
  auto step = [&] {
    optimizer->zero_grad();
    torch::Tensor loss;
    {
      AutocastScope autocast(options.precision, options.device);
      loss = task_loss(spec.task, model.forward_batch(batch), batch);
    }
    (scaled ? scaler.scale(loss) : loss).backward();
    if (scaled) {
      const bool finite = scaler.unscale(parameters);
      if (finite) optimizer->step();
      scaler.update(finite);
    } else {
      optimizer->step();
    }
    synchronize(options.device);
  };
  model.train();
  for (int i = 0; i < options.warmup; ++i) step();
  const auto start = Clock::now();
  for (int i = 0; i < options.steps; ++i) step();
  return options.steps / seconds_since(start);
}

// Query latencies as jetchar's inference runner takes them (experiments/inference/inference_runner.cpp).
nlohmann::json infer(Network& model, const jetchar::loaders::Batch& batch, const Options& options) {
  model.eval();
  c10::InferenceMode inference_mode;
  auto query = [&] {
    AutocastScope autocast(options.precision, options.device);
    model.forward_batch(batch);
    synchronize(options.device);
  };
  for (int i = 0; i < options.warmup; ++i) query();
  std::vector<std::int64_t> latencies;
  const auto start = Clock::now();
  for (int i = 0; i < options.queries; ++i) {
    const auto query_start = Clock::now();
    query();
    latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - query_start).count());
  }
  const double timed_s = seconds_since(start);
  const auto stats = latency_stats(latencies);
  return {{"infer_queries", options.queries},
          {"infer_p50_ms", static_cast<double>(stats.p50_ns) / 1e6},
          {"infer_p90_ms", static_cast<double>(stats.p90_ns) / 1e6},
          {"infer_p99_ms", static_cast<double>(stats.p99_ns) / 1e6},
          {"infer_avg_ms", stats.avg_ns / 1e6},
          {"infer_samples_per_s", static_cast<double>(options.queries * options.batch) / timed_s}};
}

nlohmann::json run(const std::string& name, const Options& options) {
  const auto& spec = find_model(name);
  torch::manual_seed(0);
  auto model = make_model(spec);
  model->to(options.device);
  auto input = spec.default_input;
  if (spec.token_input()) input = {options.sequence_length};
  const auto batch = on_device(synthetic_batch(spec, options.batch, spec.default_classes, input, 0), options.device);
  nlohmann::json result = {
      {"model", name}, {"batch", options.batch}, {"input", input}, {"parameters", parameter_count(*model)}};
  Tf32Scope tf32(options.precision == Precision::kTf32);
  if (!options.infer_only) {
    result["train_steps"] = options.steps;
    result["train_steps_per_s"] = train_steps_per_s(spec, *model, batch, options);
  }
  result.update(infer(*model, batch, options));
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"LibTorch workload benchmark (training steps/s, inference latencies); prints one JSON object"};
  Options options;
  int threads = 2;
  std::string device = "cpu", precision = "fp32";
  std::vector<std::string> only = {"lenet5", "resnet18-cifar", "bert-tiny"};
  app.add_option("--threads", threads, "LibTorch intra-op threads")->capture_default_str();
  app.add_option("--steps", options.steps, "Timed training steps per workload")->capture_default_str();
  app.add_option("--queries", options.queries, "Timed inference queries per workload")->capture_default_str();
  app.add_option("--warmup", options.warmup, "Untimed steps/queries first")->capture_default_str();
  app.add_option("--batch", options.batch, "Samples per step and per query")->capture_default_str();
  app.add_option("--seq", options.sequence_length, "Sequence length of the token models")->capture_default_str();
  app.add_option("--device", device, "cpu, cuda or cuda:N")->capture_default_str();
  app.add_option("--precision", precision, "fp32, tf32, amp-fp16 (fp16) or bf16")->capture_default_str();
  app.add_flag("--infer-only", options.infer_only, "Inference latencies only, no training steps");
  app.add_option("--only", only, "Models of jetchar's registry to run")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    options.device = parse_device(device);
    options.precision = parse_precision(precision);
    check_precision(options.precision, options.device);
    torch::set_num_threads(threads);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& name : only) results.push_back(run(name, options));
    fmt::print("{}\n", nlohmann::json{{"side", "libtorch"},
                                      {"threads", torch::get_num_threads()},
                                      {"device", options.device.str()},
                                      {"precision", resolved_precision(options.precision, options.device)},
                                      {"version", fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                                              TORCH_VERSION_PATCH)},
                                      {"results", results}}
                           .dump(2));
  } catch (const std::exception& error) {
    fmt::print(stderr, "workloads_bench: {}\n", error.what());
    return 2;
  }
  return 0;
}
