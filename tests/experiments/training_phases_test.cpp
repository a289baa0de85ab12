#include "experiments/training_phases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

using ::testing::HasSubstr;

proto::ExperimentSpec phased(const std::string& dataset) {
  proto::ExperimentSpec spec;
  auto* w = spec.mutable_workload();
  w->set_model("bert-tiny-mlm");
  w->set_dataset(dataset);
  w->set_batch_size(32);
  w->set_accumulate(1);
  w->set_learning_rate(1e-4);
  w->set_max_minibatches(7);
  auto* one = w->add_phases();
  one->set_sequence_length(128);
  one->set_steps(900);
  one->set_warmup_proportion(0.2);
  auto* two = w->add_phases();
  two->set_sequence_length(512);
  two->set_steps(100);
  two->set_batch_size(8);
  two->set_accumulate(4);
  two->set_learning_rate(4e-4);
  return spec;
}

std::string refusal(const proto::ExperimentSpec& spec) {
  try {
    check_phases(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainingPhasesTest, EachPhaseIsTheWorkloadWithItsLengthBatchAndSchedule) {
  const auto spec = phased("corpus:/data/wiki.txt?vocab=v.txt&max_length=64&seed=3");
  EXPECT_EQ(refusal(spec), "no error");
  const auto specs = phase_specs(spec);
  ASSERT_EQ(specs.size(), 2u);
  const auto& one = specs[0].workload();
  EXPECT_EQ(one.dataset(), "corpus:/data/wiki.txt?max_length=128&seed=3&vocab=v.txt");
  EXPECT_EQ(one.sequence_length(), 128u);
  EXPECT_EQ(one.batch_size(), 32u);  // the workload's
  EXPECT_EQ(one.accumulate(), 1u);
  EXPECT_DOUBLE_EQ(one.learning_rate(), 1e-4);
  EXPECT_DOUBLE_EQ(one.warmup_proportion(), 0.2);
  EXPECT_EQ(one.max_minibatches(), 0u);
  EXPECT_EQ(one.phases_size(), 0);
  const auto& two = specs[1].workload();
  EXPECT_EQ(two.dataset(), "corpus:/data/wiki.txt?max_length=512&seed=3&vocab=v.txt");
  EXPECT_EQ(two.batch_size(), 8u);
  EXPECT_EQ(two.accumulate(), 4u);
  EXPECT_DOUBLE_EQ(two.learning_rate(), 4e-4);
  EXPECT_FALSE(two.has_warmup_proportion());
  // A data set without options gains the length; a spec without phases is its own one phase.
  EXPECT_EQ(phase_specs(phased("corpus:wiki.txt"))[1].workload().dataset(), "corpus:wiki.txt?max_length=512");
  proto::ExperimentSpec plain;
  plain.mutable_workload()->set_dataset("corpus:wiki.txt");
  ASSERT_EQ(phase_specs(plain).size(), 1u);
  EXPECT_EQ(phase_specs(plain)[0].workload().dataset(), "corpus:wiki.txt");
}

TEST(TrainingPhasesTest, EpochsHoldTheStepsWithAnEpochsLastMinibatchStepping) {
  EXPECT_EQ(epochs_for_steps(10, 2, 7), 3);  // 4 steps an epoch
  EXPECT_EQ(epochs_for_steps(8, 2, 7), 2);
  EXPECT_EQ(epochs_for_steps(1, 1, 100), 1);
  EXPECT_EQ(epochs_for_steps(5, 8, 3), 5);  // one step an epoch
}

TEST(TrainingPhasesTest, PhasesThatCannotRunAreRefusedNamingWhy) {
  auto spec = phased("conll2003:data");
  EXPECT_THAT(refusal(spec), HasSubstr("workload.phases: phases pretrain on a text corpus (corpus:FILE); data set "
                                       "'conll2003:data' is of kind conll2003"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_workload()->mutable_phases(1)->set_steps(0);
  EXPECT_THAT(refusal(spec), HasSubstr("phase 2: steps is 0; valid: 1 or more optimizer steps"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_workload()->mutable_phases(0)->set_sequence_length(4);
  EXPECT_THAT(refusal(spec), HasSubstr("phase 1: sequence_length 4 is not valid; valid: 8 or more tokens"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_workload()->mutable_phases(0)->set_warmup_proportion(1.5);
  EXPECT_THAT(refusal(spec), HasSubstr("phase 1: warmup_proportion 1.5 is not valid"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_workload()->mutable_distributed()->set_nproc_per_node(2);
  EXPECT_NO_THROW(check_phases(spec));  // every rank trains the phases (distributed/rank_worker.cpp)
  spec = phased("corpus:wiki.txt");
  spec.mutable_adaptive()->set_enabled(true);
  EXPECT_THAT(refusal(spec), HasSubstr("adaptive stopping"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_measurement()->set_power_samples(true);
  EXPECT_THAT(refusal(spec), HasSubstr("measurement.power_samples"));
  spec = phased("corpus:wiki.txt");
  spec.mutable_workload()->set_task(proto::INFER);
  EXPECT_THAT(refusal(spec), HasSubstr("phases are for training"));
}

TEST(TrainingPhasesTest, AppendingAPhaseNumbersItsEpochsOnAndKeepsTheFirstFailure) {
  TrainingResult run;
  run.epochs.resize(2);
  run.epochs[1].epoch = 1;
  run.memory.peak_rss_kib = 100;
  TrainingResult two;
  two.epochs.resize(2);
  two.epochs[1].epoch = 1;
  two.minibatches.push_back({1, 0, 4, 0, 0, 0, std::nullopt});
  two.status = RunStatus::kOom;
  two.error = "out of memory";
  two.memory.peak_rss_kib = 300;
  append_phase(run, two, 2);
  ASSERT_EQ(run.epochs.size(), 4u);
  EXPECT_EQ(run.epochs[3].epoch, 3);
  EXPECT_EQ(run.epochs[3].phase, 2);
  EXPECT_EQ(run.minibatches[0].epoch, 3);
  EXPECT_EQ(run.status, RunStatus::kOom);
  EXPECT_EQ(run.error, "phase 2: out of memory");
  EXPECT_EQ(run.memory.peak_rss_kib, 300u);
}

}  // namespace
}  // namespace jetchar::experiments
