// The simulated board's time model: monotone in every knob, the seed study's ratios within a band,
// work from the model figures, published bandwidths, the fetch stall's parts and its workers, and
// bad clocks refused by name.
#include "jetson/simulated/simulated_time_model.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace jetchar::jetson {
namespace {

// The model definitions' figures as `jetchar models` and the counted layers give them (forward
// MACs per sample, conv/linear output elements per sample, parameters, parameter tensors, layers),
// rounded; tests/experiments/models/study_trends_test.cpp counts them from the definitions.
const ModelWork kLenetWork{416.5e3, 6.5e3, 61'706, 10, 5};
const ModelWork kResnet18Cifar{555.4e6, 614e3, 11.17e6, 62, 21};
const ModelWork kMobilenetV3Large{216.6e6, 4.41e6, 5.48e6, 174, 64};

// The seed study's AGX Xavier modes (8 cores each; CPU, GPU, EMC GHz).
const ModeClocks kModeD{8, 1.2, 0.9, 1.6};
const ModeClocks kModeE{8, 2.1, 0.9, 1.6};
const ModeClocks kModeH{8, 2.265, 1.377, 1.066};
const ModeClocks kModeG{8, 2.265, 1.377, 2.133};

SocThroughput soc(const std::string& family) {
  const auto found = soc_throughput(family);
  if (!found) throw std::runtime_error("no figures for " + family);
  return *found;
}

double minibatch_s(const ModelWork& model, const std::string& family, ModeClocks clocks, double batch = 16) {
  return modelled_minibatch_time(training_work(model, batch), soc(family), clocks).total_s;
}

TEST(SimulatedTimeModelTest, TimeFallsWithEveryClockAndNeverRisesWithCores) {
  const std::vector<int> cores = {1, 2, 4, 6, 8, 12};
  const std::vector<double> cpu = {0.42, 0.73, 1.2, 1.7, 2.2};
  const std::vector<double> gpu = {0.3, 0.6, 0.9, 1.3};
  const std::vector<double> emc = {0.2, 0.665, 2.133, 3.2};
  for (const auto* model : {&kLenetWork, &kResnet18Cifar, &kMobilenetV3Large}) {
    for (const double batch : {1.0, 16.0, 64.0}) {
      const auto work = training_work(*model, batch);
      const auto orin = soc("AGX Orin");
      for (const int c : cores) {
        for (const double f : cpu) {
          for (const double g : gpu) {
            for (const double m : emc) {
              const double t = modelled_minibatch_time(work, orin, {c, f, g, m}).total_s;
              ASSERT_GT(t, 0);
              // Each knob one step up: strictly faster for the clocks, never slower for cores.
              EXPECT_LT(modelled_minibatch_time(work, orin, {c, f * 1.25, g, m}).total_s, t);
              EXPECT_LT(modelled_minibatch_time(work, orin, {c, f, g * 1.25, m}).total_s, t);
              EXPECT_LT(modelled_minibatch_time(work, orin, {c, f, g, m * 1.25}).total_s, t);
              EXPECT_LE(modelled_minibatch_time(work, orin, {c + 1, f, g, m}).total_s, t);
            }
          }
        }
      }
    }
  }
}

TEST(SimulatedTimeModelTest, CpuClockCutsLaunchBoundLenetAsTheStudyReports) {
  // The study: CPU 1.2 -> 2.1 GHz (mode d -> e: GPU 0.9, EMC 1.6 GHz) cut LeNet's compute by
  // about 37 %; a band of +-8 points around it.
  const double d = minibatch_s(kLenetWork, "AGX Xavier", kModeD);
  const double e = minibatch_s(kLenetWork, "AGX Xavier", kModeE);
  EXPECT_NEAR(1 - e / d, 0.37, 0.08) << "LeNet-5 d -> e: " << 1 - e / d << ", the study 0.37";
  // The same CPU step with the GPU and EMC at their top clocks: launch-bound, so about as much.
  const double slow = minibatch_s(kLenetWork, "AGX Xavier", {8, 1.2, 1.377, 2.133});
  const double fast = minibatch_s(kLenetWork, "AGX Xavier", {8, 2.1, 1.377, 2.133});
  const double cut = 1 - fast / slow;
  EXPECT_GT(cut, 0.32) << cut;
  EXPECT_LT(cut, 0.43) << cut;
  // GPU-bound ResNet-18 barely notices the CPU clock.
  const double resnet_cut = 1 - minibatch_s(kResnet18Cifar, "AGX Xavier", {8, 2.1, 1.377, 2.133}) /
                                    minibatch_s(kResnet18Cifar, "AGX Xavier", {8, 1.2, 1.377, 2.133});
  EXPECT_LT(resnet_cut, 0.05) << resnet_cut;
}

TEST(SimulatedTimeModelTest, DoublingEmcCutsEveryModelAsTheStudyReports) {
  // The study: doubling the EMC clock (mode h -> g, EMC 1066 -> 2133 MHz at MAXN's CPU and GPU
  // clocks) cut compute by 26 % (ResNet-18), 28 % (MobileNetV3) and 33 % (LeNet-5); bands of
  // +-8 points around each. LeNet too: its small kernels wait on DRAM latency.
  const std::vector<std::pair<const ModelWork*, double>> study = {
      {&kResnet18Cifar, 0.26}, {&kMobilenetV3Large, 0.28}, {&kLenetWork, 0.33}};
  for (const auto& [model, study_cut] : study) {
    for (const double batch : {4.0, 16.0}) {
      const double h = minibatch_s(*model, "AGX Xavier", kModeH, batch);
      const double g = minibatch_s(*model, "AGX Xavier", kModeG, batch);
      EXPECT_NEAR(1 - g / h, study_cut, 0.08)
          << "h -> g at batch " << batch << ": " << 1 - g / h << ", the study " << study_cut;
    }
  }
  // The same step at a slightly lower CPU clock (2.1 GHz) lands in the study's 26-33 % range too.
  for (const auto* model : {&kResnet18Cifar, &kMobilenetV3Large, &kLenetWork}) {
    const double half = minibatch_s(*model, "AGX Xavier", {8, 2.1, 1.377, 1.0665});
    const double full = minibatch_s(*model, "AGX Xavier", {8, 2.1, 1.377, 2.133});
    const double cut = 1 - full / half;
    EXPECT_GT(cut, 0.19) << cut;
    EXPECT_LT(cut, 0.40) << cut;
  }
}

// Why LeNet follows both of the study's steps: its dispatch (CPU) and its GPU side trade places.
TEST(SimulatedTimeModelTest, LenetsDispatchAndGpuSidesTradePlacesAcrossTheStudysModes) {
  const auto xavier = soc("AGX Xavier");
  const auto work = training_work(kLenetWork, 4);
  const auto at = [&](const ModeClocks& clocks) { return modelled_minibatch_time(work, xavier, clocks); };
  const auto d = at(kModeD), e = at(kModeE), h = at(kModeH), g = at(kModeG);
  const auto cpu = [](const MinibatchTime& t) { return t.dispatch_s + t.host_s; };
  EXPECT_GT(cpu(d), 1.5 * d.gpu_s) << "mode d: the slow CPU's dispatch dominates";
  EXPECT_NEAR(e.gpu_s / cpu(e), 1.0, 0.2) << "mode e: the GPU side about as long as dispatch";
  EXPECT_GT(h.gpu_s, 1.2 * cpu(h)) << "mode h: the slow EMC's latency-bound kernels dominate";
  EXPECT_GT(cpu(g), 1.2 * g.gpu_s) << "mode g: dispatch dominates again";
  // The GPU side follows the EMC: its kernels' minimum duration is mostly DRAM latency.
  EXPECT_GT(h.gpu_s / g.gpu_s, 1.7);
}

TEST(SimulatedTimeModelTest, BiggerBoardsAreFasterAtTheirTopClocks) {
  const double nano = minibatch_s(kResnet18Cifar, "Nano", {4, 1.479, 0.9216, 1.6});
  const double xavier = minibatch_s(kResnet18Cifar, "AGX Xavier", {8, 2.2656, 1.377, 2.133});
  const double orin = minibatch_s(kResnet18Cifar, "AGX Orin", {12, 2.2016, 1.3005, 3.199});
  EXPECT_GT(nano, xavier);
  EXPECT_GT(xavier, orin);
}

TEST(SimulatedTimeModelTest, WorkFollowsTheModelFigures) {
  const auto train = training_work(kLenetWork, 16);
  EXPECT_DOUBLE_EQ(train.gpu_macs, 3 * 16 * 416.5e3);
  EXPECT_DOUBLE_EQ(train.kernels, 8 * 5 + 2 * 10);
  const auto infer = inference_work(kLenetWork, 16);
  EXPECT_DOUBLE_EQ(infer.gpu_macs, 16 * 416.5e3);
  EXPECT_LT(infer.dram_bytes, train.dram_bytes);
  // More samples per minibatch: more time, less per sample.
  const auto orin = soc("AGX Orin");
  const ModeClocks top{12, 2.2, 1.3, 3.2};
  const double t16 = modelled_minibatch_time(training_work(kResnet18Cifar, 16), orin, top).total_s;
  const double t64 = modelled_minibatch_time(training_work(kResnet18Cifar, 64), orin, top).total_s;
  EXPECT_GT(t64, t16);
  EXPECT_LT(t64 / 64, t16 / 16);
}

TEST(SimulatedTimeModelTest, PublishedBandwidthsAndUnknownFamilies) {
  const auto orin = soc("AGX Orin");
  EXPECT_DOUBLE_EQ(orin.bus_bytes_per_cycle() * orin.emc_max_ghz, 204.8);  // GB/s
  const auto nano = soc("Nano");
  EXPECT_DOUBLE_EQ(nano.bus_bytes_per_cycle() * nano.emc_max_ghz, 25.6);
  EXPECT_FALSE(soc_throughput("a board nobody has").has_value());
}

TEST(SimulatedTimeModelTest, BusyShares) {
  const auto orin = soc("AGX Orin");
  const auto lenet = modelled_minibatch_time(training_work(kLenetWork, 16), orin, {8, 1.2, 1.3, 3.2});
  EXPECT_GT(lenet.cpu_busy, 0.8);  // launch-bound: the CPU is busy nearly all the time
  EXPECT_LT(lenet.gpu_busy, 0.2);
  // At a slow EMC its small kernels' DRAM latency sets the minibatch's time, but the GPU's busy
  // share counts only its computing.
  const auto waiting = modelled_minibatch_time(training_work(kLenetWork, 16), orin, {8, 2.2, 1.3, 0.665});
  EXPECT_GT(waiting.gpu_s, waiting.dispatch_s + waiting.host_s);
  EXPECT_LT(waiting.gpu_busy, 0.2);
  const auto resnet = modelled_minibatch_time(training_work(kResnet18Cifar, 16), orin, {8, 2.2, 0.3, 3.2});
  EXPECT_GT(resnet.gpu_busy, 0.8);  // a slow GPU clock: the GPU is the bottleneck
  // ... while the CPU, done dispatching, spin-waits for it: busy all but the synchronize.
  EXPECT_GT(resnet.cpu_busy, 0.95);
  EXPECT_LT(resnet.dispatch_s + resnet.host_s, 0.2 * resnet.total_s);
}

TEST(SimulatedTimeModelTest, BadClocksAreRefusedByName) {
  const auto orin = soc("AGX Orin");
  const auto work = training_work(kLenetWork, 16);
  const auto message = [&](ModeClocks clocks) {
    try {
      modelled_minibatch_time(work, orin, clocks);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({0, 1.2, 1.3, 3.2}).find("online core count"), std::string::npos);
  EXPECT_NE(message({8, 0, 1.3, 3.2}).find("CPU clock"), std::string::npos);
  EXPECT_NE(message({8, 1.2, -1, 3.2}).find("GPU clock (GHz) must be positive, got -1"), std::string::npos);
  EXPECT_NE(message({8, 1.2, 1.3, 0}).find("EMC clock"), std::string::npos);
  MinibatchWork negative = work;
  negative.kernels = -1;
  EXPECT_THROW(modelled_minibatch_time(negative, orin, {8, 1.2, 1.3, 3.2}), std::invalid_argument);
}

// Fashion-MNIST and GLD-23k samples as count_fetch_work gives them, fetched by `workers`.
FetchWork fashion_mnist(int workers) { return {784, 3136, 784, false, workers}; }
FetchWork gld23k(int workers) { return {150'528, 602'112, 100'000, true, workers}; }

TEST(SimulatedTimeModelTest, TheStallIsTheCopyAndWhatTheLoaderPreparesInTheLoop) {
  const auto xavier = soc("AGX Xavier");
  const auto t = modelled_fetch_time(fashion_mnist(0), 16, xavier, kModeG, 0.004, false);
  EXPECT_GT(t.prepare_s, 0);
  EXPECT_GT(t.copy_s, 0);
  EXPECT_DOUBLE_EQ(t.stall_s, t.copy_s + t.prepare_s);
  // A JPEG to decode per sample: far more than a Fashion-MNIST sample, near HiPC'21's 214 ms a
  // minibatch of 16 with no workers at MAXN.
  const auto jpegs = modelled_fetch_time(gld23k(0), 16, xavier, kModeG, 0.2, false);
  EXPECT_GT(jpegs.stall_s, 100 * t.stall_s);
  EXPECT_NEAR(jpegs.stall_s, 0.214, 0.214 * 0.25);
  // Time falls with the CPU and the EMC clock, grows with the batch.
  EXPECT_GT(modelled_fetch_time(fashion_mnist(0), 16, xavier, kModeD, 0, false).stall_s,
            modelled_fetch_time(fashion_mnist(0), 16, xavier, kModeE, 0, false).stall_s);
  EXPECT_GT(modelled_fetch_time(fashion_mnist(0), 16, xavier, kModeH, 0, false).stall_s,
            modelled_fetch_time(fashion_mnist(0), 16, xavier, kModeG, 0, false).stall_s);
  EXPECT_GT(modelled_fetch_time(fashion_mnist(0), 32, xavier, kModeG, 0, false).stall_s, t.stall_s);
}

TEST(SimulatedTimeModelTest, WorkersHidePreparingBehindComputeExceptAtAnEpochsStart) {
  const auto xavier = soc("AGX Xavier");
  const auto none = modelled_fetch_time(gld23k(0), 16, xavier, kModeG, 0.2, false);
  const auto one = modelled_fetch_time(gld23k(1), 16, xavier, kModeG, 0.2, false);
  const auto four = modelled_fetch_time(gld23k(4), 16, xavier, kModeG, 0.2, false);
  EXPECT_DOUBLE_EQ(one.stall_s, one.copy_s + std::max(0.0, one.prepare_s - one.copy_s - 0.2));
  EXPECT_LT(one.stall_s, none.stall_s);
  EXPECT_LT(four.stall_s, one.stall_s);
  EXPECT_DOUBLE_EQ(four.stall_s, four.copy_s) << "four workers prepare faster than the loop consumes";
  // Each worker takes a core beside the training loop's: two cores leave room for one.
  ModeClocks two_cores = kModeG;
  two_cores.online_cores = 2;
  EXPECT_DOUBLE_EQ(modelled_fetch_time(gld23k(4), 16, xavier, two_cores, 0.2, false).stall_s, one.stall_s);
  // The epoch's first minibatch waits for a whole batch to be prepared.
  EXPECT_DOUBLE_EQ(modelled_fetch_time(gld23k(4), 16, xavier, kModeG, 0.2, true).stall_s, none.stall_s);
}

TEST(SimulatedTimeModelTest, BadFetchFiguresAreRefusedByName) {
  const auto xavier = soc("AGX Xavier");
  const auto message = [&](FetchWork work, double batch, ModeClocks clocks, double compute_s) {
    try {
      modelled_fetch_time(work, batch, xavier, clocks, compute_s, false);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(fashion_mnist(-1), 16, kModeG, 0).find("loader's workers must be a non-negative number, got -1"),
            std::string::npos);
  EXPECT_NE(message({784, -1, 784, false, 0}, 16, kModeG, 0).find("input_bytes"), std::string::npos);
  EXPECT_NE(message(fashion_mnist(0), -16, kModeG, 0).find("batch size"), std::string::npos);
  EXPECT_NE(message(fashion_mnist(0), 16, {8, 2.265, 1.377, 0}, 0).find("EMC clock"), std::string::npos);
  EXPECT_NE(message(fashion_mnist(0), 16, kModeG, -0.1).find("compute time"), std::string::npos);
}

}  // namespace
}  // namespace jetchar::jetson
