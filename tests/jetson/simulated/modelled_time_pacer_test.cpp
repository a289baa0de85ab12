// The simulated board's pacer: a minibatch's fetch stall and compute end no earlier than their
// modelled times, a host slower than the model dilates time by a factor calibrated once, a
// minibatch whose fetch or compute overruns even that is counted once, the modelled time follows the mode read back
// from the board, inference queries are paced after an unpaced warm-up, and the rails' activity follows the modelled
// busy shares while it lives, idling while a server waits for queries.
#include "jetson/simulated/modelled_time_pacer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "jetson/discovery/board_info.h"
#include "jetson/simulated/simulated_board.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

// LeNet-5's figures as model_work.h counts them (approximately; the pacer only scales them).
const ModelWork kLenet{416.5e3, 6.5e3, 61'706, 10, 5};
// A Fashion-MNIST sample (count_fetch_work's figures) fetched by the training loop itself.
const FetchWork kFashionMnist{784, 3136, 784, false, 0};

BoardInfo info_of(const SimulatedBoard& board) { return discover_board_info(board.root(), BoardRequest::kAuto); }

// A pacer of LeNet-5's training minibatches of 16 Fashion-MNIST samples on `board` as it is now.
std::unique_ptr<ModelledTimePacer> lenet_pacer(SimulatedBoard& board) {
  std::string why_not;
  auto pacer = ModelledTimePacer::for_training(board, info_of(board), kLenet, kFashionMnist, 16, why_not);
  if (!pacer) ADD_FAILURE() << why_not;
  return pacer;
}

TEST(ModelledTimePacerTest, ComputeEndsAtTheModelledTimeAndASlowerHostIsCounted) {
  SimulatedBoard board("agx-orin-r36");
  auto pacer = lenet_pacer(board);
  ASSERT_NE(pacer, nullptr);
  const double modelled_s = pacer->minibatch_time().total_s;
  ASSERT_GT(modelled_s, 0);
  const auto start = ModelledTimePacer::Clock::now();
  const auto end = pacer->pace(start, 16);
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), modelled_s);
  // The board's end, not the moment the sleep returned (later on a loaded host): the same to the tick.
  EXPECT_LE(std::chrono::duration<double>(end - start).count(), modelled_s + 2e-9);
  EXPECT_EQ(pacer->paced(), 1u);
  // Compute that began long ago has overrun the model: counted, not waited for.
  pacer->pace(ModelledTimePacer::Clock::now() - std::chrono::seconds(10), 16);
  EXPECT_EQ(pacer->host_slower(), 1u);

  const PacedTime paced = pacer->paced_time();
  EXPECT_NE(paced.time_model.find("modelled"), std::string::npos);
  EXPECT_DOUBLE_EQ(paced.minibatch_compute_s, modelled_s);
  EXPECT_EQ(paced.paced, 1u);
  EXPECT_EQ(paced.host_slower, 1u);
}

TEST(ModelledTimePacerTest, AFetchStallEndsAtTheModelledStallOnceTheFirstMinibatchSetK) {
  SimulatedBoard board("agx-orin-r36");
  auto pacer = lenet_pacer(board);
  ASSERT_NE(pacer, nullptr);
  const double stall_s = pacer->fetch_time().stall_s;
  ASSERT_GT(stall_s, 0);
  EXPECT_DOUBLE_EQ(pacer->paced_time().minibatch_stall_s, stall_s);
  // The run's first fetch comes before k is known: the host's, not waited for.
  const auto long_ago = ModelledTimePacer::Clock::now() - std::chrono::seconds(10);
  const auto before = ModelledTimePacer::Clock::now();
  EXPECT_GE(pacer->pace_fetch(long_ago, 0, 16), before);
  pacer->pace(ModelledTimePacer::Clock::now(), 16);
  EXPECT_EQ(pacer->paced(), 1u);
  // From then on a fetch ends at its modelled stall, to the tick.
  const auto start = ModelledTimePacer::Clock::now();
  const auto end = pacer->pace_fetch(start, 1, 16);
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), stall_s);
  EXPECT_LE(std::chrono::duration<double>(end - start).count(), stall_s + 2e-9);
  EXPECT_GE(ModelledTimePacer::Clock::now(), end);
  pacer->pace(ModelledTimePacer::Clock::now(), 16);
  EXPECT_EQ(pacer->paced(), 2u);
  // A loader that overran the stall ends the stall at the board's time; its minibatch counts once
  // as the host's, though its compute kept to the model.
  const auto fetch_start = ModelledTimePacer::Clock::now() - std::chrono::seconds(10);
  EXPECT_EQ(pacer->pace_fetch(fetch_start, 2, 16) - fetch_start,
            std::chrono::ceil<ModelledTimePacer::Clock::duration>(std::chrono::duration<double>(stall_s)));
  pacer->pace(ModelledTimePacer::Clock::now(), 16);
  EXPECT_EQ(pacer->paced(), 2u);
  EXPECT_EQ(pacer->host_slower(), 1u);
}

TEST(ModelledTimePacerTest, InferenceQueriesAreNotFetched) {
  SimulatedBoard board("agx-orin-r36");
  std::string why_not;
  auto pacer = ModelledTimePacer::for_inference(board, info_of(board), kLenet, 16, 1, why_not);
  ASSERT_NE(pacer, nullptr) << why_not;
  pacer->pace(ModelledTimePacer::Clock::now(), 16);
  const auto long_ago = ModelledTimePacer::Clock::now() - std::chrono::seconds(10);
  const auto before = ModelledTimePacer::Clock::now();
  EXPECT_GE(pacer->pace_fetch(long_ago, 1, 16), before);
  EXPECT_DOUBLE_EQ(pacer->paced_time().minibatch_stall_s, 0.0);
  EXPECT_EQ(pacer->host_slower(), 0u);
}

TEST(ModelledTimePacerTest, AHostSlowerThanTheModelDilatesTimeByAFactorCalibratedOnTheFirstMinibatch) {
  SimulatedBoard board("agx-orin-r36");
  auto pacer = lenet_pacer(board);
  ASSERT_NE(pacer, nullptr);
  const double modelled_s = pacer->minibatch_time().total_s;
  const auto seconds = [](double s) {
    return std::chrono::duration_cast<ModelledTimePacer::Clock::duration>(std::chrono::duration<double>(s));
  };
  // The first minibatch took the host 4x the modelled time: k = 1.25 x (at least) 4, and this
  // minibatch too ends at k x its modelled time.
  auto start = ModelledTimePacer::Clock::now() - seconds(4 * modelled_s);
  auto end = pacer->pace(start, 16);
  const double k = pacer->dilation();
  EXPECT_GE(k, ModelledTimePacer::kDilationMargin * 4);
  EXPECT_LT(k, ModelledTimePacer::kDilationMargin * 4 * 2) << "calibrated on far more than the host's time";
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), k * modelled_s);
  // Calibrated once: a later fast minibatch waits for k x the model too, and the factor stays.
  start = ModelledTimePacer::Clock::now();
  end = pacer->pace(start, 16);
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), k * modelled_s);
  EXPECT_DOUBLE_EQ(pacer->dilation(), k);
  EXPECT_EQ(pacer->paced(), 2u);
  // One that overruns even k x the model is counted as the host's.
  pacer->pace(ModelledTimePacer::Clock::now() - seconds(2 * k * modelled_s), 16);
  EXPECT_EQ(pacer->host_slower(), 1u);
  EXPECT_DOUBLE_EQ(pacer->paced_time().dilation, k);
}

TEST(ModelledTimePacerTest, AHostThatKeepsUpIsNotDilated) {
  SimulatedBoard board("agx-orin-r36");
  auto pacer = lenet_pacer(board);
  ASSERT_NE(pacer, nullptr);
  pacer->pace(ModelledTimePacer::Clock::now(), 16);
  EXPECT_DOUBLE_EQ(pacer->dilation(), 1.0);
  EXPECT_DOUBLE_EQ(pacer->paced_time().dilation, 1.0);
}

TEST(ModelledTimePacerTest, InferenceQueriesArePacedToTheInferenceWorkAfterAnUnpacedWarmUp) {
  SimulatedBoard board("agx-orin-r36");
  auto training = lenet_pacer(board);
  ASSERT_NE(training, nullptr);
  const double training_s = training->minibatch_time().total_s;
  training.reset();
  std::string why_not;
  auto pacer = ModelledTimePacer::for_inference(board, info_of(board), kLenet, 16, 3, why_not);
  ASSERT_NE(pacer, nullptr) << why_not;
  const double query_s = pacer->minibatch_time().total_s;
  EXPECT_GT(query_s, 0);
  EXPECT_LT(query_s, training_s) << "a forward pass is less work than forward, backward and the optimizer";
  // The first two warm-up queries run at the host's pace: no wait, not counted.
  const auto long_ago = ModelledTimePacer::Clock::now() - std::chrono::seconds(10);
  pacer->pace(long_ago, 16);
  pacer->pace(long_ago, 16);
  EXPECT_EQ(pacer->paced() + pacer->host_slower(), 0u);
  EXPECT_DOUBLE_EQ(pacer->dilation(), 1.0);
  // The last one calibrates.
  const auto start = ModelledTimePacer::Clock::now();
  const auto end = pacer->pace(start, 16);
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), query_s);
  EXPECT_EQ(pacer->paced(), 1u);
}

TEST(ModelledTimePacerTest, TheModelledTimeFollowsTheModeReadBack) {
  SimulatedBoard board("agx-orin-r36");
  auto fast = lenet_pacer(board);
  ASSERT_NE(fast, nullptr);
  const double fast_s = fast->minibatch_time().total_s;
  fast.reset();
  // Every CPU cluster down to its lowest frequency: launch-bound LeNet slows down.
  for (const auto& policy : board.root().glob("/sys/devices/system/cpu/cpufreq/policy*")) {
    sysfs::write_string(board.root(), policy + "/scaling_max_freq", "729600");
  }
  board.update();
  auto slow = lenet_pacer(board);
  ASSERT_NE(slow, nullptr);
  EXPECT_DOUBLE_EQ(slow->clocks().cpu_ghz, 0.7296);
  EXPECT_GT(slow->minibatch_time().total_s, 1.5 * fast_s);
}

TEST(ModelledTimePacerTest, TheRailsFollowTheModelledBusySharesWhileItLives) {
  SimulatedBoard board("agx-orin-r36");
  {
    auto pacer = lenet_pacer(board);
    ASSERT_NE(pacer, nullptr);
    board.update_sensors();
    // Over a minibatch's stall and compute: the GPU idles while the loop waits, a loader works.
    const auto& compute = pacer->minibatch_time();
    const double stall = pacer->fetch_time().stall_s;
    ASSERT_GT(stall, 0);
    const double period = stall + compute.total_s;
    EXPECT_DOUBLE_EQ(pacer->paced_time().cpu_busy, (compute.cpu_busy * compute.total_s + stall) / period);
    EXPECT_DOUBLE_EQ(pacer->paced_time().gpu_busy, compute.gpu_busy * compute.total_s / period);
    EXPECT_DOUBLE_EQ(board.power().host_utilization, pacer->paced_time().cpu_busy);
  }
  board.pin_host_utilization(0.25);  // measured again once the pacer is gone; pinned here to compare
  board.update_sensors();
  EXPECT_DOUBLE_EQ(board.power().host_utilization, 0.25);
}

// A server waiting for queries idles the board: no busy share, so less power than while busy,
// until its next batch.
TEST(ModelledTimePacerTest, AServerBetweenBatchesIdlesTheRails) {
  SimulatedBoard board("agx-orin-r36");
  std::string why_not;
  auto pacer = ModelledTimePacer::for_inference(board, info_of(board), kLenet, 4, 2, why_not);
  ASSERT_NE(pacer, nullptr) << why_not;
  board.update_sensors();
  const auto busy = board.power();
  EXPECT_GT(busy.host_utilization, 0);
  pacer->set_idle(true);
  board.update_sensors();
  const auto idle = board.power();
  EXPECT_DOUBLE_EQ(idle.host_utilization, 0);
  EXPECT_LT(idle.gpu_mw, busy.gpu_mw);
  EXPECT_LT(idle.total_mw, busy.total_mw);
  pacer->set_idle(false);
  board.update_sensors();
  EXPECT_DOUBLE_EQ(board.power().total_mw, busy.total_mw);
}

TEST(ModelledTimePacerTest, AFamilyWithoutFiguresIsNotPacedAndSaysWhy) {
  SimulatedBoard board("agx-orin-r36");
  auto info = info_of(board);
  info.identity.family = "Jetson Nobody";
  std::string why_not;
  EXPECT_EQ(ModelledTimePacer::for_training(board, info, kLenet, kFashionMnist, 16, why_not), nullptr);
  EXPECT_NE(why_not.find("no throughput figures for family 'Jetson Nobody'"), std::string::npos) << why_not;
}

}  // namespace
}  // namespace jetchar::jetson
