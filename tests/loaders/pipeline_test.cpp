#include "loaders/pipeline.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "loaders/cifar10_dataset.h"
#include "loaders/synthetic_dataset.h"
#include "sysfs/root.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const Dataset> synthetic(std::int64_t samples, std::chrono::microseconds delay = 0us) {
  return std::make_shared<SyntheticDataset>(std::vector<std::int64_t>{2, 3}, samples, 7, delay);
}

// A data set whose sample `bad` fails, as a corrupt record would.
class FailingDataset : public Dataset {
 public:
  explicit FailingDataset(std::int64_t bad) : inner_({4}, 40, 2), bad_(bad) {}
  const DatasetInfo& info() const override { return inner_.info(); }
  std::int64_t size() const override { return inner_.size(); }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override {
    if (index == bad_) return SampleStatus::failure("bad.bin offset 123: label 77 is not a class id 0..9");
    return inner_.get(index, rng, out);
  }

 private:
  SyntheticDataset inner_;
  std::int64_t bad_;
};

std::vector<std::vector<float>> run_epoch(Pipeline& pipeline, std::int64_t epoch,
                                          std::vector<std::int64_t>* targets = nullptr) {
  std::vector<std::vector<float>> batches;
  pipeline.start_epoch(epoch);
  while (auto batch = pipeline.next()) {
    const auto& t = batch->inputs;
    batches.emplace_back(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    if (targets) {
      for (std::int64_t i = 0; i < batch->targets.size(0); ++i)
        targets->push_back(batch->targets[i].item<std::int64_t>());
    }
  }
  return batches;
}

TEST(Pipeline, SameSeedSameBatchesWhateverTheWorkerCount) {
  auto dataset = synthetic(103);
  std::vector<std::vector<std::vector<float>>> results;
  for (int workers : {0, 1, 2, 3}) {
    PipelineOptions options;
    options.batch_size = 8;
    options.num_workers = workers;
    options.seed = 42;
    Pipeline pipeline(dataset, options);
    auto epoch0 = run_epoch(pipeline, 0);
    auto epoch1 = run_epoch(pipeline, 1);
    EXPECT_NE(epoch0, epoch1) << "epochs must reshuffle and redraw augmentations";
    epoch0.insert(epoch0.end(), epoch1.begin(), epoch1.end());
    results.push_back(std::move(epoch0));
  }
  for (std::size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]) << "worker config " << i;
  PipelineOptions other;
  other.batch_size = 8;
  other.seed = 43;
  Pipeline different(dataset, other);
  EXPECT_NE(run_epoch(different, 0), std::vector(results[0].begin(), results[0].begin() + 13));
}

// Data-parallel shards: three ranks with batch 4 see, step by step, the samples one pipeline with
// batch 12 sees; the two samples 50 leaves over are no rank's, so every rank runs 4 minibatches.
TEST(Pipeline, ShardsTogetherCoverWhatOneLargerBatchCovers) {
  auto dataset = synthetic(50);
  PipelineOptions whole;
  whole.batch_size = 12;
  whole.seed = 5;
  const auto order = Pipeline(dataset, whole).epoch_order(2);
  std::vector<std::vector<std::int64_t>> shards;
  for (std::int64_t rank = 0; rank < 3; ++rank) {
    PipelineOptions options = whole;
    options.batch_size = 4;
    options.shard_count = 3;
    options.shard_index = rank;
    Pipeline shard(dataset, options);
    EXPECT_EQ(shard.samples_per_epoch(), 16);
    EXPECT_EQ(shard.batches_per_epoch(), 4);
    shards.push_back(shard.epoch_order(2));
  }
  for (std::size_t step = 0; step < 4; ++step) {
    std::vector<std::int64_t> ranks;
    for (const auto& shard : shards) ranks.insert(ranks.end(), shard.begin() + 4 * step, shard.begin() + 4 * step + 4);
    std::vector<std::int64_t> one(order.begin() + 12 * step, order.begin() + 12 * step + 12);
    std::sort(ranks.begin(), ranks.end());
    std::sort(one.begin(), one.end());
    EXPECT_EQ(ranks, one) << "step " << step;
  }
  PipelineOptions bad = whole;
  bad.shard_count = 2;
  bad.shard_index = 2;
  EXPECT_THROW(Pipeline(dataset, bad), std::invalid_argument);
  bad.shard_count = 51;
  bad.shard_index = 0;
  EXPECT_THROW(Pipeline(dataset, bad), std::invalid_argument);
}

TEST(Pipeline, ShuffleIsAPermutationAndUnshuffledIsInOrder) {
  auto dataset = synthetic(50);
  PipelineOptions options;
  options.batch_size = 7;
  options.num_workers = 2;
  Pipeline shuffled(dataset, options);
  std::vector<std::int64_t> order = shuffled.epoch_order(3);
  std::vector<std::int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> expected(50);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(sorted, expected);
  EXPECT_NE(order, expected);
  options.shuffle = false;
  Pipeline plain(dataset, options);
  std::vector<std::int64_t> targets;
  run_epoch(plain, 0, &targets);
  ASSERT_EQ(targets.size(), 50U);
  for (std::int64_t i = 0; i < 50; ++i) EXPECT_EQ(targets[i], i % 7);
}

TEST(Pipeline, DropLastAndPartialLastBatch) {
  auto dataset = synthetic(10);
  PipelineOptions options;
  options.batch_size = 4;
  options.num_workers = 1;
  Pipeline keep(dataset, options);
  EXPECT_EQ(keep.batches_per_epoch(), 3);
  EXPECT_EQ(keep.samples_per_epoch(), 10);
  keep.start_epoch(0);
  std::vector<std::int64_t> sizes;
  while (auto batch = keep.next()) {
    sizes.push_back(batch->inputs.size(0));
    EXPECT_EQ(batch->inputs.sizes(), (std::vector<std::int64_t>{batch->inputs.size(0), 2, 3}));
    EXPECT_TRUE(batch->inputs.is_contiguous());
    EXPECT_EQ(batch->targets.dtype(), torch::kInt64);
  }
  EXPECT_EQ(sizes, (std::vector<std::int64_t>{4, 4, 2}));
  EXPECT_EQ(keep.epoch_stats().samples, 10);
  EXPECT_TRUE(keep.epoch_stats().complete);
  options.drop_last = true;
  Pipeline drop(dataset, options);
  EXPECT_EQ(drop.batches_per_epoch(), 2);
  EXPECT_EQ(run_epoch(drop, 0).size(), 2U);
  EXPECT_EQ(drop.epoch_stats().samples, 8);
}

TEST(Pipeline, HeldBatchesAreNotOverwritten) {
  auto dataset = synthetic(64);
  PipelineOptions options;
  options.batch_size = 4;
  options.num_workers = 2;
  options.prefetch_factor = 1;
  Pipeline pipeline(dataset, options);
  pipeline.start_epoch(0);
  std::vector<Batch> kept;
  std::vector<torch::Tensor> copies;
  while (auto batch = pipeline.next()) {
    copies.push_back(batch->inputs.clone());
    kept.push_back(std::move(*batch));
  }
  ASSERT_EQ(kept.size(), 16U);
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_TRUE(torch::equal(kept[i].inputs, copies[i])) << i;
}

TEST(Pipeline, SampleErrorReachesTheConsumerWithItsMessage) {
  PipelineOptions options;
  options.batch_size = 4;
  options.shuffle = false;
  for (int workers : {0, 2}) {
    options.num_workers = workers;
    Pipeline pipeline(std::make_shared<FailingDataset>(9), options);
    pipeline.start_epoch(0);
    ASSERT_TRUE(pipeline.next());
    ASSERT_TRUE(pipeline.next());
    try {
      pipeline.next();
      FAIL() << "no error";
    } catch (const SampleError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.bin offset 123"), std::string::npos) << e.what();
    }
    // The pipeline can start over.
    pipeline.start_epoch(1);
    EXPECT_TRUE(pipeline.next());
  }
}

TEST(Pipeline, RejectsBadOptions) {
  PipelineOptions options;
  options.batch_size = 0;
  EXPECT_THROW(Pipeline(synthetic(4), options), std::invalid_argument);
  options.batch_size = 1;
  options.prefetch_factor = 0;
  EXPECT_THROW(Pipeline(synthetic(4), options), std::invalid_argument);
  options.prefetch_factor = 2;
  options.pin_memory = true;
  Pipeline pipeline(synthetic(4), options);
  EXPECT_EQ(pipeline.pinned(), torch::cuda::is_available());
}

// CIFAR-10 records in the real format with random pixels.
std::shared_ptr<const Dataset> cifar(const jetchar::testing::TempDir& dir, int records, const std::string& transform) {
  std::string bytes(static_cast<std::size_t>(records) * kCifarRecordBytes, '\0');
  Rng rng(5);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng.below(256));
  for (int r = 0; r < records; ++r) bytes[static_cast<std::size_t>(r) * kCifarRecordBytes] = static_cast<char>(r % 10);
  dir.write("cifar/data_batch_1.bin", bytes);
  return Cifar10Dataset::open_dir(dir.path() / "cifar", "train", Transform::parse(transform));
}

// Real augmentations (random crop with padding, flip) on real records: the same seed gives the
// same batches whatever the worker count and prefetch depth.
TEST(Pipeline, SameAugmentationsWhateverTheWorkersOnRealRecords) {
  jetchar::testing::TempDir dir;
  auto dataset = cifar(dir, 37, "cifar10-augment");
  std::vector<std::vector<float>> reference;
  std::vector<std::int64_t> reference_targets;
  for (const auto& [workers, prefetch] : std::vector<std::pair<int, int>>{{0, 2}, {1, 1}, {2, 2}, {3, 4}}) {
    PipelineOptions options;
    options.batch_size = 5;
    options.num_workers = workers;
    options.prefetch_factor = prefetch;
    options.seed = 7;
    Pipeline pipeline(dataset, options);
    std::vector<std::int64_t> targets;
    auto batches = run_epoch(pipeline, 2, &targets);
    EXPECT_EQ(pipeline.epoch_stats().bytes_read, 37U * kCifarRecordBytes) << "every record read once";
    if (reference.empty()) {
      reference = std::move(batches);
      reference_targets = std::move(targets);
      continue;
    }
    EXPECT_EQ(targets, reference_targets) << workers << " workers";
    EXPECT_EQ(batches, reference) << workers << " workers, prefetch " << prefetch;
  }
  // The augmentations are really random: the same samples in another epoch differ.
  PipelineOptions plain;
  plain.batch_size = 37;
  plain.shuffle = false;
  Pipeline pipeline(dataset, plain);
  EXPECT_NE(run_epoch(pipeline, 0), run_epoch(pipeline, 1));
}

// The data path monitor attached to a pipeline records residency around every epoch.
TEST(Pipeline, AttachedDataPathIsRecordedPerEpoch) {
  jetchar::testing::TempDir dir;
  auto dataset = cifar(dir, 8, "cifar10");
  PipelineOptions options;
  options.batch_size = 4;
  options.num_workers = 1;
  Pipeline pipeline(dataset, options);
  pipeline.attach_data_path(
      std::make_shared<DataPathMonitor>(sysfs::Root("/"), dataset->info().files, dataset->info().root));
  run_epoch(pipeline, 0);
  ASSERT_TRUE(pipeline.epoch_stats().data_path.has_value());
  EXPECT_TRUE(pipeline.epoch_stats().data_path->residency_after.has_value());
  EXPECT_GT(*pipeline.epoch_stats().data_path->residency_after, 0.99) << "the epoch just read every record";
}

double median_ms(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2] / 1e6;
}

// A reader with a known delay: 4 samples x 3 ms = 12 ms per batch. Waits are bounded below by the
// delays; whether a load was hidden is checked by counting prefetch hits, never by an upper bound
// on time (a loaded machine stretches every wait).
TEST(PipelineIntegration, StallFiguresMatchAKnownSlowReader) {
  auto slow = synthetic(48, 3000us);
  PipelineOptions options;
  options.batch_size = 4;

  // 0 workers: every batch is loaded in the consumer, so each wait is the whole load (>= 12 ms).
  {
    Pipeline pipeline(slow, options);
    pipeline.start_epoch(0);
    while (pipeline.next()) {
    }
    const EpochStats& stats = pipeline.epoch_stats();
    ASSERT_EQ(stats.batch_wait_ns.size(), 12U);
    for (auto wait : stats.batch_wait_ns) EXPECT_GE(wait, 12'000'000);
    EXPECT_GE(stats.stall_ns, 144'000'000);
    EXPECT_EQ(stats.batches_ready_on_request, 0);
    ASSERT_EQ(stats.worker_busy_ns.size(), 1U);
    EXPECT_GE(stats.worker_busy_ns[0], 144'000'000);
    EXPECT_NEAR(stats.samples_per_s(), 48 / (stats.wall_ns / 1e9), 1e-6);
  }
  // 2 workers, consumer "computes" 60 ms per batch (five loads' time): after the first batch the
  // loads are hidden, so the first wait is a whole load and the later batches are ready when asked.
  {
    options.num_workers = 2;
    Pipeline pipeline(slow, options);
    pipeline.start_epoch(0);
    while (pipeline.next()) std::this_thread::sleep_for(60ms);
    const EpochStats& stats = pipeline.epoch_stats();
    ASSERT_EQ(stats.batch_wait_ns.size(), 12U);
    EXPECT_GE(stats.batch_wait_ns[0], 12'000'000);
    EXPECT_GE(stats.batches_ready_on_request, 10) << "of the 11 batches after the first";
    ASSERT_EQ(stats.worker_busy_ns.size(), 2U);
    for (auto busy : stats.worker_busy_ns) EXPECT_GE(busy, 6 * 12'000'000);
  }
  // 1 worker, no consumer work: the consumer waits for each load (minus overlap with its own
  // negligible work), so the stall stays near the load time per batch.
  {
    options.num_workers = 1;
    Pipeline pipeline(slow, options);
    pipeline.start_epoch(0);
    while (pipeline.next()) {
    }
    const EpochStats& stats = pipeline.epoch_stats();
    EXPECT_GE(median_ms(stats.batch_wait_ns), 10.0);
    EXPECT_GE(stats.stall_ns, 120'000'000);
  }
  // 1 worker, consumer "computes" 6 ms per batch: the load (12 ms) is only partly hidden, so each
  // wait is at least load - compute (the study's max(fetch - compute, 0)).
  {
    options.num_workers = 1;
    Pipeline pipeline(slow, options);
    pipeline.start_epoch(0);
    while (pipeline.next()) std::this_thread::sleep_for(6ms);
    const EpochStats& stats = pipeline.epoch_stats();
    ASSERT_EQ(stats.batch_wait_ns.size(), 12U);
    std::vector<std::int64_t> later(stats.batch_wait_ns.begin() + 1, stats.batch_wait_ns.end());
    EXPECT_GE(median_ms(later), 3.0);
  }
}

}  // namespace
}  // namespace jetchar::loaders
