// The real check of the training runner: LeNet-5 on the real Fashion-MNIST (Debian package
// fashion-mnist, /usr/share/datasets/fashion-mnist) reaches at least 85 % test accuracy after two
// epochs of SGD (lr 0.01, momentum 0.9, batch 64), as the seed study trains it, on the one compute
// thread the experiments tests run with (tests/experiments/one_compute_thread.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "experiments/models/lenet5.h"
#include "experiments/training/training_runner.h"
#include "loaders/mnist_dataset.h"
#include "loaders/pipeline.h"

namespace jetchar::experiments {
namespace {

const std::filesystem::path kFashionMnist = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnistTrainingIntegration, LeNet5ReachesEightyFivePercentInTwoEpochs) {
  if (!std::filesystem::exists(kFashionMnist)) {
    GTEST_SKIP() << kFashionMnist << " is absent (Debian package fashion-mnist)";
  }
  auto transform = loaders::Transform::parse("normalize=0.2860/0.3530");
  std::shared_ptr<const loaders::Dataset> train_set =
      loaders::MnistDataset::open_dir(kFashionMnist, "train", true, transform);
  std::shared_ptr<const loaders::Dataset> test_set =
      loaders::MnistDataset::open_dir(kFashionMnist, "test", true, transform);
  loaders::Pipeline train_source(train_set, loaders::PipelineOptions{.batch_size = 64, .num_workers = 1, .seed = 1});
  loaders::Pipeline test_source(test_set,
                                loaders::PipelineOptions{.batch_size = 1000, .num_workers = 1, .shuffle = false});

  // The initial weights come from the global generator: seed it here, or they depend on the tests
  // that ran before in the same process (the integration tests share one) — 85.0 % vs 87.1 % seen.
  torch::manual_seed(1);
  LeNet5 model;
  TrainingConfig config;
  config.epochs = 2;
  config.seed = 1;
  config.eval_source = &test_source;
  sysfs::Root root;
  auto result = train(*model, train_source, config, root, "lenet5");
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  for (const auto& epoch : result.epochs) {
    std::printf(
        "epoch %lld: loss %.4f, train accuracy %.4f, test accuracy %.4f, stall %.2f s, compute %.2f s, "
        "E2E %.2f s, %.0f samples/s\n",
        static_cast<long long>(epoch.epoch), *epoch.mean_loss, *epoch.train_accuracy, *epoch.eval_accuracy,
        epoch.stall_ns / 1e9, epoch.compute_ns / 1e9, epoch.e2e_ns / 1e9, epoch.samples_per_s());
  }
  ASSERT_EQ(result.epochs.size(), 2u);
  EXPECT_EQ(result.epochs[1].samples, 60'000);
  EXPECT_GE(*result.epochs[1].eval_accuracy, 0.85);
}

}  // namespace
}  // namespace jetchar::experiments
