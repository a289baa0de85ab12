// LibTorch side of the workload benchmark against PyTorch in Python (bench/workloads_bench.py runs
// both and prints the ratios). For each workload: training steps/s (zero_grad, forward, loss,
// backward, optimizer step on one fixed synthetic batch, as the Python side does) and inference
// latency p50 (eval, no_grad). Same models, batch and thread count on both sides.
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

namespace {

using Clock = std::chrono::steady_clock;
using namespace jetchar::experiments;

struct Workload {
  std::string model;
  std::int64_t batch;
  std::vector<std::int64_t> input;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

nlohmann::json run(const Workload& workload, int steps, int queries, int warmup) {
  const auto& spec = find_model(workload.model);
  torch::manual_seed(0);
  auto model = make_model(spec);
  auto batch = synthetic_batch(spec, workload.batch, spec.default_classes, workload.input, 0);
  const bool token = spec.token_input();
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (token) {
    optimizer =
        std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(5e-5).weight_decay(0.01));
  } else {
    optimizer = std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  }
  auto step = [&] {
    optimizer->zero_grad();
    auto loss = task_loss(spec.task, model->forward_batch(batch), batch);
    loss.backward();
    optimizer->step();
  };
  model->train();
  for (int i = 0; i < warmup; ++i) step();
  const auto train_start = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double train_s = seconds_since(train_start);

  model->eval();
  // As the inference runner does (experiments/inference/inference_runner.cpp).
  c10::InferenceMode inference_mode;
  for (int i = 0; i < warmup; ++i) model->forward_batch(batch);
  std::vector<std::int64_t> latencies;
  for (int i = 0; i < queries; ++i) {
    const auto start = Clock::now();
    model->forward_batch(batch);
    latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  }
  const auto stats = latency_stats(latencies);
  return {{"model", workload.model},
          {"batch", workload.batch},
          {"parameters", parameter_count(*model)},
          {"train_steps", steps},
          {"train_steps_per_s", steps / train_s},
          {"infer_queries", queries},
          {"infer_p50_ms", static_cast<double>(stats.p50_ns) / 1e6},
          {"infer_avg_ms", stats.avg_ns / 1e6}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"LibTorch workload benchmark (training steps/s, inference p50); prints one JSON object"};
  int threads = 2, steps = 50, queries = 50, warmup = 5;
  std::vector<std::string> only;
  app.add_option("--threads", threads, "LibTorch intra-op threads")->capture_default_str();
  app.add_option("--steps", steps, "Timed training steps per workload")->capture_default_str();
  app.add_option("--queries", queries, "Timed inference queries per workload")->capture_default_str();
  app.add_option("--warmup", warmup, "Untimed steps/queries first")->capture_default_str();
  app.add_option("--only", only, "Run only these models (lenet5, resnet18-cifar, bert-tiny)");
  CLI11_PARSE(app, argc, argv);

  torch::set_num_threads(threads);
  const std::vector<Workload> workloads = {
      {"lenet5", 16, {1, 28, 28}},
      {"resnet18-cifar", 16, {3, 32, 32}},
      {"bert-tiny", 16, {128}},
  };
  nlohmann::json results = nlohmann::json::array();
  for (const auto& workload : workloads) {
    if (!only.empty() && std::find(only.begin(), only.end(), workload.model) == only.end()) continue;
    results.push_back(run(workload, steps, queries, warmup));
  }
  fmt::print("{}\n", nlohmann::json{{"side", "libtorch"},
                                    {"threads", torch::get_num_threads()},
                                    {"version", fmt::format("{}.{}.{}", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                                            TORCH_VERSION_PATCH)},
                                    {"results", results}}
                         .dump(2));
  return 0;
}
