#include "loaders/pipeline.h"

#include <fmt/format.h>
#include <torch/cuda.h>

#include <stdexcept>

#include "sysfs/monotonic_clock.h"

namespace jetchar::loaders {
namespace {

std::vector<std::int64_t> batch_shape(std::int64_t batch, const std::vector<std::int64_t>& sample) {
  std::vector<std::int64_t> shape{batch};
  shape.insert(shape.end(), sample.begin(), sample.end());
  return shape;
}

// Whether anyone besides the slot still refers to the tensor or its memory.
bool shared(const torch::Tensor& tensor) {
  return tensor.defined() && (tensor.use_count() > 1 || tensor.storage().use_count() > 1);
}

}  // namespace

Pipeline::Pipeline(std::shared_ptr<const Dataset> dataset, PipelineOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_ || dataset_->size() <= 0) throw std::invalid_argument("data pipeline: the data set is empty");
  if (options_.batch_size < 1 || options_.num_workers < 0 || options_.num_workers > 256 ||
      options_.prefetch_factor < 1) {
    throw std::invalid_argument(
        fmt::format("data pipeline: batch size {} / workers {} / prefetch factor {} not valid; expected batch >= 1, "
                    "0 <= workers <= 256, prefetch >= 1",
                    options_.batch_size, options_.num_workers, options_.prefetch_factor));
  }
  if (options_.shard_count < 1 || options_.shard_index < 0 || options_.shard_index >= options_.shard_count) {
    throw std::invalid_argument(fmt::format("data pipeline: shard {} of {} not valid; expected 0 <= shard < count",
                                            options_.shard_index, options_.shard_count));
  }
  if (dataset_->size() < options_.shard_count) {
    throw std::invalid_argument(fmt::format("data pipeline: {} samples cannot be shared by {} ranks; each needs one",
                                            dataset_->size(), options_.shard_count));
  }
  pinned_ = options_.pin_memory && torch::cuda::is_available();
  const int workers = std::max(1, options_.num_workers);
  // With workers: prefetch_factor batches ahead plus the one the consumer is using.
  slots_per_worker_ = options_.num_workers == 0 ? 1 : options_.prefetch_factor + 1;
  slots_.assign(workers, std::vector<Slot>(slots_per_worker_));
  next_k_.assign(workers, 0);
  taken_k_.assign(workers, 0);
  released_k_.assign(workers, 0);
  busy_ns_.assign(workers, 0);
  plan_.batches = 0;  // no epoch yet: workers idle until start_epoch()
  for (int w = 0; w < options_.num_workers; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

Pipeline::~Pipeline() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& thread : threads_) thread.join();
}

std::int64_t Pipeline::samples_per_epoch() const {
  const std::int64_t n = dataset_->size() / options_.shard_count;
  return options_.drop_last ? n / options_.batch_size * options_.batch_size : n;
}

std::int64_t Pipeline::batches_per_epoch() const {
  const std::int64_t n = dataset_->size() / options_.shard_count;
  return options_.drop_last ? n / options_.batch_size : (n + options_.batch_size - 1) / options_.batch_size;
}

std::vector<std::int64_t> Pipeline::epoch_order(std::int64_t epoch) const {
  std::vector<std::int64_t> order(static_cast<std::size_t>(dataset_->size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  if (options_.shuffle) {
    Rng rng(options_.seed, static_cast<std::uint64_t>(epoch), ~std::uint64_t{0});
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  }
  if (options_.shard_count == 1) return order;
  std::vector<std::int64_t> shard(order.size() / static_cast<std::size_t>(options_.shard_count));
  for (std::size_t j = 0; j < shard.size(); ++j)
    shard[j] =
        order[static_cast<std::size_t>(options_.shard_index) + j * static_cast<std::size_t>(options_.shard_count)];
  return shard;
}

void Pipeline::ensure_buffers(Slot& slot) {
  const SampleLayout& layout = dataset_->info().layout;
  const std::int64_t b = options_.batch_size;
  auto options = [&](torch::ScalarType type) { return torch::TensorOptions().dtype(type).pinned_memory(pinned_); };
  if (!slot.inputs.defined() || shared(slot.inputs)) {
    slot.inputs = torch::empty(batch_shape(b, layout.input_shape),
                               options(layout.input_type == InputType::kFloat32 ? torch::kFloat32 : torch::kInt64));
  }
  if (!slot.targets.defined() || shared(slot.targets)) {
    slot.targets = torch::empty(batch_shape(b, layout.target_shape), options(torch::kInt64));
  }
  if (layout.has_attention_mask && (!slot.attention_mask.defined() || shared(slot.attention_mask))) {
    slot.attention_mask = torch::empty(batch_shape(b, layout.input_shape), options(torch::kInt64));
  }
  if (layout.has_token_type_ids && (!slot.token_type_ids.defined() || shared(slot.token_type_ids))) {
    slot.token_type_ids = torch::empty(batch_shape(b, layout.input_shape), options(torch::kInt64));
  }
}

std::uint64_t Pipeline::fill(Slot& slot, const EpochPlan& plan, std::int64_t batch) {
  const SampleLayout& layout = dataset_->info().layout;
  const std::int64_t total = static_cast<std::int64_t>(plan.order->size());
  const std::int64_t first = batch * options_.batch_size;
  const std::int64_t count = std::min(options_.batch_size, total - first);
  slot.count = count;
  slot.error.clear();
  std::uint64_t bytes = 0;
  try {
    ensure_buffers(slot);
    const std::int64_t in_n = layout.input_elements();
    const std::int64_t tgt_n = layout.target_elements();
    const bool f32 = layout.input_type == InputType::kFloat32;
    float* in_f = f32 ? slot.inputs.data_ptr<float>() : nullptr;
    std::int64_t* in_i = f32 ? nullptr : slot.inputs.data_ptr<std::int64_t>();
    std::int64_t* tgt = slot.targets.data_ptr<std::int64_t>();
    std::int64_t* mask = layout.has_attention_mask ? slot.attention_mask.data_ptr<std::int64_t>() : nullptr;
    std::int64_t* types = layout.has_token_type_ids ? slot.token_type_ids.data_ptr<std::int64_t>() : nullptr;
    Rng rng;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t index = (*plan.order)[first + i];
      rng.reseed(options_.seed, static_cast<std::uint64_t>(plan.epoch), static_cast<std::uint64_t>(index));
      SampleOut out;
      if (f32) out.input_f32 = {in_f + i * in_n, static_cast<std::size_t>(in_n)};
      else out.input_i64 = {in_i + i * in_n, static_cast<std::size_t>(in_n)};
      out.target = {tgt + i * tgt_n, static_cast<std::size_t>(tgt_n)};
      if (mask != nullptr) out.attention_mask = {mask + i * in_n, static_cast<std::size_t>(in_n)};
      if (types != nullptr) out.token_type_ids = {types + i * in_n, static_cast<std::size_t>(in_n)};
      SampleStatus status = dataset_->get(index, rng, out);
      if (!status.ok) {
        slot.error = std::move(status.error);
        break;
      }
      bytes += status.bytes_read;
    }
  } catch (const std::exception& e) {
    slot.error = fmt::format("{}: batch {}: {}", dataset_->info().name, batch, e.what());
  }
  return bytes;
}

void Pipeline::worker_loop(int worker) {
  const int n = options_.num_workers;
  std::unique_lock lock(mutex_);
  while (true) {
    work_cv_.wait(lock, [&] {
      if (stop_) return true;
      const std::int64_t k = next_k_[worker];
      const std::int64_t batch = worker + k * n;
      return batch < plan_.batches && k < taken_k_[worker] + options_.prefetch_factor &&
             k - released_k_[worker] < slots_per_worker_;
    });
    if (stop_) return;
    const EpochPlan plan = plan_;
    const std::int64_t k = next_k_[worker]++;
    const std::int64_t batch = worker + k * n;
    Slot& slot = slots_[worker][k % slots_per_worker_];
    slot.ready = false;
    lock.unlock();
    const std::int64_t start = sysfs::monotonic_ns();
    const std::uint64_t bytes = fill(slot, plan, batch);
    const std::int64_t busy = sysfs::monotonic_ns() - start;
    lock.lock();
    if (plan.generation != plan_.generation) continue;  // the epoch was restarted meanwhile: discard
    busy_ns_[worker] += busy;
    bytes_read_ += bytes;
    slot.batch = batch;
    slot.ready = true;
    ready_cv_.notify_all();
  }
}

Pipeline::Slot& Pipeline::slot_for(std::int64_t batch) {
  const int n = std::max(1, options_.num_workers);
  return slots_[batch % n][(batch / n) % slots_per_worker_];
}

void Pipeline::start_epoch(std::int64_t epoch) {
  if (epoch_open_) finish_epoch(false);
  auto order = std::make_shared<const std::vector<std::int64_t>>(epoch_order(epoch));
  if (monitor_) monitor_->begin_epoch();
  stats_ = EpochStats{};
  stats_.epoch = epoch;
  stats_.batch_wait_ns.reserve(static_cast<std::size_t>(batches_per_epoch()));
  {
    std::lock_guard lock(mutex_);
    plan_.generation++;
    plan_.epoch = epoch;
    plan_.batches = batches_per_epoch();
    plan_.order = std::move(order);
    std::fill(next_k_.begin(), next_k_.end(), 0);
    std::fill(taken_k_.begin(), taken_k_.end(), 0);
    std::fill(released_k_.begin(), released_k_.end(), 0);
    std::fill(busy_ns_.begin(), busy_ns_.end(), 0);
    bytes_read_ = 0;
    for (auto& worker_slots : slots_) {
      for (auto& slot : worker_slots) {
        slot.ready = false;
        slot.batch = -1;
      }
    }
  }
  next_batch_ = 0;
  held_batch_ = -1;
  epoch_open_ = true;
  epoch_start_ns_ = sysfs::monotonic_ns();
  work_cv_.notify_all();
}

void Pipeline::finish_epoch(bool complete) {
  // A complete epoch's clock stopped when its last batch was handed out (see next()).
  if (!complete || stats_.wall_ns == 0) stats_.wall_ns = sysfs::monotonic_ns() - epoch_start_ns_;
  stats_.complete = complete;
  {
    std::lock_guard lock(mutex_);
    stats_.bytes_read = bytes_read_;
    stats_.worker_busy_ns = busy_ns_;
    if (!complete) {
      plan_.generation++;  // stop workers on the abandoned epoch
      plan_.batches = 0;
    }
  }
  if (monitor_) stats_.data_path = monitor_->end_epoch();
  epoch_open_ = false;
}

std::optional<Batch> Pipeline::next() {
  if (!epoch_open_) {
    if (stats_.epoch < 0) throw std::logic_error("data pipeline: next() before start_epoch()");
    return std::nullopt;
  }
  const int n = options_.num_workers;
  const int workers = std::max(1, n);
  if (held_batch_ >= 0) {
    std::lock_guard lock(mutex_);
    released_k_[held_batch_ % workers]++;
    held_batch_ = -1;
  }
  if (next_batch_ >= plan_.batches) {
    finish_epoch(true);
    return std::nullopt;
  }
  const std::int64_t batch = next_batch_;
  const std::int64_t start = sysfs::monotonic_ns();
  Slot& slot = slot_for(batch);
  if (n == 0) {
    const std::uint64_t bytes = fill(slot, plan_, batch);
    std::lock_guard lock(mutex_);
    busy_ns_[0] += sysfs::monotonic_ns() - start;
    bytes_read_ += bytes;
  } else {
    std::unique_lock lock(mutex_);
    taken_k_[batch % n] = batch / n + 1;
    if (slot.ready && slot.batch == batch) stats_.batches_ready_on_request++;
    work_cv_.notify_all();
    ready_cv_.wait(lock, [&] { return slot.ready && slot.batch == batch; });
  }
  const std::int64_t waited = sysfs::monotonic_ns() - start;
  stats_.batch_wait_ns.push_back(waited);
  stats_.stall_ns += waited;
  if (!slot.error.empty()) {
    const std::string error = slot.error;
    finish_epoch(false);
    throw SampleError(error);
  }
  held_batch_ = batch;
  ++next_batch_;
  stats_.batches++;
  stats_.samples += slot.count;
  Batch out;
  const bool full = slot.count == options_.batch_size;
  auto view = [&](const torch::Tensor& t) { return !t.defined() || full ? t : t.narrow(0, 0, slot.count); };
  out.inputs = view(slot.inputs);
  out.targets = view(slot.targets);
  out.attention_mask = view(slot.attention_mask);
  out.token_type_ids = view(slot.token_type_ids);
  out.index = batch;
  if (next_batch_ >= plan_.batches) {
    // Close the epoch's clock with its last batch, so the figure does not include the caller's work on it.
    stats_.wall_ns = sysfs::monotonic_ns() - epoch_start_ns_;
  }
  return out;
}

}  // namespace jetchar::loaders
