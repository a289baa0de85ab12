#include "experiments/distributed/gradient_all_reduce.h"

#include <fmt/format.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>

namespace jetchar::experiments::distributed {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t since(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

}  // namespace

struct GradientAllReduce::State {
  struct Bucket {
    std::vector<std::size_t> parameters;  // indices into `parameters`
    std::int64_t numel = 0;
    std::int64_t bytes = 0;
    std::size_t pending = 0;  // parameters still without their gradient in this backward
    torch::Tensor flat;
    c10::intrusive_ptr<c10d::Work> work;
    Clock::time_point launched;
    std::shared_ptr<std::atomic<std::int64_t>> done_ns;  // set by the work's completion callback
  };

  c10d::ProcessGroup* group = nullptr;
  std::vector<torch::Tensor> parameters;
  std::vector<std::size_t> bucket_of;  // per parameter
  std::vector<Bucket> buckets;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;  // kept alive, as DDP does
  std::mutex mutex;
  bool armed = false;
  bool alive = true;
  float stop_flag = 0;       // this rank's, sent in the first bucket
  bool world_stops = false;  // after finish(): the flag's sum over the ranks was above 0
  std::size_t next_launch = 0;

  // Launches every bucket from next_launch on that is ready, in order (mutex held).
  void launch_ready() {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) launch(buckets[next_launch++]);
  }

  void launch(Bucket& bucket) {
    std::vector<torch::Tensor> grads;
    grads.reserve(bucket.parameters.size());
    for (const auto index : bucket.parameters) {
      const auto& grad = parameters[index].grad();
      grads.push_back(grad.defined() ? grad.reshape({-1})
                                     : torch::zeros({parameters[index].numel()}, parameters[index].options()));
    }
    if (&bucket == &buckets.front()) grads.push_back(torch::full({1}, stop_flag, grads.front().options()));
    bucket.flat = torch::cat(grads);
    std::vector<torch::Tensor> tensors{bucket.flat};
    bucket.launched = Clock::now();
    bucket.work = group->allreduce(tensors);
    auto done = bucket.done_ns = std::make_shared<std::atomic<std::int64_t>>(0);
    const auto launched = bucket.launched;
    bucket.work->getFuture()->addCallback(
        [done, launched](c10::ivalue::Future&) { done->store(since(launched, Clock::now())); });
  }

  // The hook of parameter `index`'s gradient accumulator: its gradient is final for this backward.
  void ready(std::size_t index) {
    std::lock_guard lock(mutex);
    if (!alive || !armed) return;
    auto& bucket = buckets[bucket_of[index]];
    if (bucket.pending > 0 && --bucket.pending == 0) launch_ready();
  }
};

GradientAllReduce::GradientAllReduce(RankGroup& group) : group_(group), state_(std::make_shared<State>()) {
  state_->group = &group.group();
}

GradientAllReduce::~GradientAllReduce() {
  std::lock_guard lock(state_->mutex);
  state_->alive = false;
}

std::int64_t GradientAllReduce::rank() const { return group_.place().rank; }
std::int64_t GradientAllReduce::world_size() const { return group_.place().world_size; }

void GradientAllReduce::attach(Network& model) {
  auto& state = *state_;
  if (!state.parameters.empty()) {
    // A later pretraining phase trains the same model on: the replicas are still equal (every
    // rank took the same steps) and the hooks are in place; hooking them again would count each
    // gradient twice.
    std::vector<torch::Tensor> trainable;
    for (const auto& parameter : model.parameters()) {
      if (parameter.requires_grad()) trainable.push_back(parameter);
    }
    const bool same = trainable.size() == state.parameters.size() &&
                      std::equal(trainable.begin(), trainable.end(), state.parameters.begin(),
                                 [](const auto& a, const auto& b) { return a.is_same(b); });
    if (!same) throw std::logic_error("data-parallel gradients are already hooked to another model");
    return;
  }
  // Every replica starts as rank 0's: parameters and buffers (a BatchNorm's running statistics).
  {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> tensors;
    for (const auto& parameter : model.parameters()) tensors.push_back(parameter);
    for (const auto& buffer : model.buffers()) tensors.push_back(buffer);
    for (auto& tensor : tensors) {
      std::vector<torch::Tensor> one{tensor.is_contiguous() ? tensor : tensor.contiguous()};
      state.group->broadcast(one)->wait();
      if (one[0].data_ptr() != tensor.data_ptr()) tensor.copy_(one[0]);
    }
  }
  for (const auto& parameter : model.parameters()) {
    if (parameter.requires_grad()) state.parameters.push_back(parameter);
  }
  // Reverse order, the first bucket small (DDP's bucket assignment, without its rebuild).
  state.bucket_of.assign(state.parameters.size(), 0);
  for (std::size_t i = state.parameters.size(); i-- > 0;) {
    const auto& parameter = state.parameters[i];
    const std::int64_t bytes = parameter.numel() * static_cast<std::int64_t>(parameter.element_size());
    if (state.buckets.empty() ||
        state.buckets.back().bytes + bytes > (state.buckets.size() == 1 ? kFirstBucketBytes : kBucketBytes)) {
      state.buckets.emplace_back();
    }
    auto& bucket = state.buckets.back();
    bucket.parameters.push_back(i);
    bucket.numel += parameter.numel();
    bucket.bytes += bytes;
    state.bucket_of[i] = state.buckets.size() - 1;
  }
  std::weak_ptr<State> weak = state_;
  for (std::size_t i = 0; i < state.parameters.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(state.parameters[i]);
    accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [weak, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          if (auto shared = weak.lock()) shared->ready(i);
          return outputs;
        }));
    state.accumulators.push_back(std::move(accumulator));
  }
}

void GradientAllReduce::arm(bool stop) {
  std::lock_guard lock(state_->mutex);
  state_->armed = true;
  state_->stop_flag = stop ? 1.0F : 0.0F;
  state_->next_launch = 0;
  for (auto& bucket : state_->buckets) {
    bucket.pending = bucket.parameters.size();
    bucket.work.reset();
  }
}

StepCommunication GradientAllReduce::finish() {
  auto& state = *state_;
  StepCommunication step;
  const auto backward_end = Clock::now();
  {
    // Buckets whose parameters had no gradient in this backward go now, in order.
    std::lock_guard lock(state.mutex);
    for (auto& bucket : state.buckets) bucket.pending = 0;
    state.launch_ready();
    state.armed = false;
  }
  for (auto& bucket : state.buckets) bucket.work->wait();
  const auto all_done = Clock::now();
  step.exposed_ns = since(backward_end, all_done);
  torch::NoGradGuard no_grad;
  // The stop flags' sum, the first bucket's last element (its gradients are read by offset below).
  state.world_stops = state.buckets.front().flat[-1].item<float>() > 0.5F;
  const double scale = 1.0 / static_cast<double>(world_size());
  for (auto& bucket : state.buckets) {
    // The completion callback can run just after wait() returns: then the wait's end bounds it.
    const auto done = bucket.done_ns->load();
    step.allreduce_ns += done > 0 ? done : since(bucket.launched, all_done);
    step.bytes += bucket.bytes;
    bucket.flat.mul_(scale);
    std::int64_t offset = 0;
    for (const auto index : bucket.parameters) {
      auto& parameter = state.parameters[index];
      const auto numel = parameter.numel();
      if (parameter.grad().defined())
        parameter.mutable_grad().copy_(bucket.flat.narrow(0, offset, numel).view_as(parameter));
      offset += numel;
    }
    bucket.work.reset();
  }
  return step;
}

bool GradientAllReduce::world_stops() const { return state_->world_stops; }

void GradientAllReduce::sum(std::vector<torch::Tensor>& tensors) {
  for (auto& tensor : tensors) {
    std::vector<torch::Tensor> one{tensor.contiguous()};
    state_->group->allreduce(one)->wait();
    if (one[0].data_ptr() != tensor.data_ptr()) tensor.copy_(one[0]);
  }
}

bool GradientAllReduce::any(bool stop) {
  std::vector<torch::Tensor> flag{torch::full({1}, stop ? 1 : 0, torch::kInt32)};
  state_->group->allreduce(flag, c10d::AllreduceOptions{c10d::ReduceOp::MAX})->wait();
  return flag[0].item<int>() != 0;
}

torch::Tensor GradientAllReduce::gather(const torch::Tensor& row) {
  auto input = row.to(torch::kCPU, torch::kFloat64).contiguous();
  std::vector<std::vector<torch::Tensor>> outputs(1);
  for (std::int64_t r = 0; r < world_size(); ++r) outputs[0].push_back(torch::empty_like(input));
  std::vector<torch::Tensor> inputs{input};
  state_->group->allgather(outputs, inputs)->wait();
  return torch::stack(outputs[0]);
}

std::vector<std::int64_t> GradientAllReduce::bucket_bytes() const {
  std::vector<std::int64_t> sizes;
  for (const auto& bucket : state_->buckets) sizes.push_back(bucket.bytes);
  return sizes;
}

}  // namespace jetchar::experiments::distributed
