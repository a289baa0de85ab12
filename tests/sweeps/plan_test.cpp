#include "sweeps/plan.h"

#include <gtest/gtest.h>

#include "sweeps/spec_io.h"

namespace jetchar::sweeps {
namespace {

proto::SweepSpec sweep_of(const std::string& text) { return parse_sweep_spec(text, "sweep.textproto"); }

// The base sweep with `axes` appended (built with append: GCC 12 reports a false
// -Warray-bounds on `std::string(literal) + literal` under the test's precompiled header).
std::string base_with(std::string_view axes) {
  std::string text =
      "name: \"s\"\nbase { workload { model: \"lenet5\" dataset: \"synthetic:1x28x28\" batch_size: 16 } }\n";
  text.append(axes);
  return text;
}

TEST(SweepPlanTest, OneExperimentIsAOneRunPlanCheckedAsASweepsRunsAre) {
  proto::ExperimentSpec spec;
  spec.mutable_workload()->set_model("lenet5");
  spec.mutable_workload()->set_dataset("synthetic:1x28x28");
  spec.mutable_workload()->set_batch_size(16);
  spec.mutable_device()->set_cpu_cores(2);
  const auto plan = plan_runs({spec}, "jetchar train");
  ASSERT_EQ(plan.runs.size(), 1u);
  EXPECT_EQ(plan.runs[0].run_id, "0000-r0");
  EXPECT_EQ(plan.mode_switches, 1u);
  // The same power mode as a sweep's run on two cores: the executor would not switch between them.
  const auto sweep = plan_sweep(sweep_of("name: \"s\"\nbase { workload { model: \"lenet5\" dataset: "
                                         "\"synthetic:1x28x28\" batch_size: 8 } device { cpu_cores: 2 } }\n"),
                                "s");
  EXPECT_EQ(plan.runs[0].mode_key, sweep.runs[0].mode_key);
  spec.mutable_workload()->set_batch_size(0);
  try {
    (void)plan_runs({spec}, "jetchar train");
    FAIL() << "batch_size 0 was planned";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "workload.batch_size");
    EXPECT_EQ(e.source(), "jetchar train");
  }
}

TEST(SweepPlanTest, CartesianProductOfAxes) {
  const auto plan = plan_sweep(sweep_of(base_with(R"(
axes { field: "workload.batch_size" values: ["16", "32", "64"] }
axes { field: "loader.workers" range { from: 0 to: 2 step: 1 } }
)")),
                               "sweep.textproto");
  ASSERT_EQ(plan.runs.size(), 9u);
  EXPECT_EQ(plan.runs[0].spec.workload().batch_size(), 16u);
  EXPECT_EQ(plan.runs[0].spec.loader().workers(), 0u);
  EXPECT_EQ(plan.runs[8].spec.workload().batch_size(), 64u);
  EXPECT_EQ(plan.runs[8].spec.loader().workers(), 2u);
  EXPECT_EQ(plan.runs[4].axis_values,
            (std::vector<std::pair<std::string, std::string>>{{"workload.batch_size", "32"}, {"loader.workers", "1"}}));
  EXPECT_EQ(plan.mode_switches, 1u);
}

TEST(SweepPlanTest, DecimalRangeKeepsItsLastValue) {
  proto::Axis axis;
  axis.mutable_range()->set_from(0.1);
  axis.mutable_range()->set_to(0.3);
  axis.mutable_range()->set_step(0.1);
  EXPECT_EQ(axis_values(axis), (std::vector<std::string>{"0.1", "0.2", "0.3"}));
}

TEST(SweepPlanTest, RepetitionsBecomeSeparateRuns) {
  const auto plan = plan_sweep(sweep_of(R"(
base { workload { model: "m" dataset: "d:x" batch_size: 4 } repetitions: 3 })"),
                               "s");
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.runs[2].run_id, "0000-r2");
  EXPECT_EQ(plan.runs[2].spec.repetitions(), 1u);
}

TEST(SweepPlanTest, RunsAreGroupedByPowerMode) {
  const auto plan = plan_sweep(sweep_of(R"(
base { workload { model: "m" dataset: "d:x" batch_size: 4 } }
runs { device { gpu_freq_mhz: 600 } }
runs { device { gpu_freq_mhz: 900 } }
runs { device { gpu_freq_mhz: 600 } workload { batch_size: 8 } }
)"),
                               "s");
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(plan.mode_switches, 2u);
  EXPECT_DOUBLE_EQ(plan.runs[0].spec.device().gpu_freq_mhz(), 600);
  EXPECT_DOUBLE_EQ(plan.runs[1].spec.device().gpu_freq_mhz(), 600);
  EXPECT_EQ(plan.runs[1].spec.workload().batch_size(), 8u);
  EXPECT_EQ(plan.runs[1].run_id, "0002-r0");  // ids keep the spec order
  EXPECT_DOUBLE_EQ(plan.runs[2].spec.device().gpu_freq_mhz(), 900);
}

TEST(SweepPlanTest, EnumAxisByName) {
  const auto plan = plan_sweep(sweep_of(base_with(R"(
axes { field: "cache" values: ["WARM", "EVICT_EVERY_EPOCH"] })")),
                               "s");
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[1].spec.cache(), proto::EVICT_EVERY_EPOCH);
}

TEST(SweepPlanTest, UnknownAxisFieldListsValidFields) {
  try {
    plan_sweep(sweep_of(base_with(R"(axes { field: "workload.batchsize" values: "4" })")), "s.textproto");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("'batchsize' is not a settable field of WorkloadSpec; valid: model, dataset"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepPlanTest, BadAxisValueNamesEnumChoices) {
  try {
    plan_sweep(sweep_of(base_with(R"(axes { field: "cache" values: "COLD" })")), "s");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("'COLD' is not a valid value; valid: CACHE_POLICY_UNSPECIFIED, WARM"),
              std::string::npos)
        << e.what();
  }
}

TEST(SweepPlanTest, AxisValueZeroThatWouldReadAsUnsetIsRefused) {
  try {
    plan_sweep(sweep_of(base_with(R"(axes { field: "workload.epochs" values: ["0", "2"] })")), "s.textproto");
    FAIL() << "epochs 0 would have run 1 epoch";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "field workload.epochs: axis value '0': 0 cannot be told from leaving the field out"),
              std::string::npos)
        << e.what();
  }
  // 0 is a value of its own where the field's unset value is 0: no workers loads in the training thread.
  EXPECT_EQ(plan_sweep(sweep_of(base_with(R"(axes { field: "loader.workers" values: ["0", "2"] })")), "s").runs.size(),
            2u);
}

TEST(SweepPlanTest, InvalidExpandedRunNamesItsAxisValues) {
  try {
    plan_sweep(sweep_of(base_with(R"(axes { field: "workload.batch_size" values: ["8", "0"] })")), "s.textproto");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("run 1 workload.batch_size=0: 0 is out of range"), std::string::npos)
        << e.what();
  }
}

TEST(SweepPlanTest, DescribesModes) {
  proto::DeviceSpec device;
  device.set_cpu_cores(4);
  device.set_cpu_freq_mhz(1420.8);
  device.set_dvfs(proto::OFF);
  EXPECT_EQ(describe_mode(device), "4 cores CPU/GPU/EMC 1420.8/-/- MHz DVFS off");
  device.Clear();
  device.set_preset_mode(2);
  EXPECT_EQ(describe_mode(device), "preset 2");
}

std::string plan_error(std::string_view axes) {
  const std::string text = base_with(axes);
  try {
    (void)plan_sweep(sweep_of(text), "sweep.textproto");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "no error";
}

// A field on two axes would set both values in turn: runs labelled 306 and 612 MHz both ran at
// the last value written.
TEST(SweepPlanTest, AFieldOnTwoAxesIsRefused) {
  EXPECT_NE(plan_error(R"(
axes { field: "device.gpu_freq_mhz" values: ["306"] }
axes { field: "workload.batch_size" values: ["16"] }
axes { field: "device.gpu_freq_mhz" values: ["612"] }
)")
                .find("field 'device.gpu_freq_mhz' is on axes 1 and 3"),
            std::string::npos);
}

TEST(SweepPlanTest, AValueTwiceOnAnAxisIsRefusedAsWrittenOrAsANumber) {
  EXPECT_NE(plan_error(R"(axes { field: "workload.batch_size" values: ["16", "32", "16"] })").find("value 16 twice"),
            std::string::npos);
  EXPECT_NE(plan_error(R"(axes { field: "device.gpu_freq_mhz" values: ["612", "612.0"] })").find("value 612 twice"),
            std::string::npos);
}

// Counted before expanding: a range of 10^12 steps is refused at once instead of filling memory.
TEST(SweepPlanTest, APlanOverItsRunLimitIsRefusedBeforeItIsExpanded) {
  EXPECT_NE(plan_error(R"(axes { field: "workload.seed" range { from: 0 to: 1e12 step: 1 } })")
                .find("expands to 1000000000001 runs (repetitions counted), more than its limit of 10000"),
            std::string::npos);
  // Repetitions count: 101 x 100 runs.
  try {
    (void)plan_sweep(sweep_of(R"(name: "r"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 16 } repetitions: 100 }
axes { field: "workload.seed" range { from: 0 to: 100 step: 1 } }
)"),
                     "sweep.textproto");
    ADD_FAILURE() << "10100 runs were planned";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("expands to 10100 runs"), std::string::npos) << e.what();
  }
  // max_runs raises the limit for a sweep that means it.
  std::string text = base_with(R"(axes { field: "workload.seed" range { from: 0 to: 10000 step: 1 } })");
  text.append("max_runs: 20000\n");
  EXPECT_EQ(plan_sweep(sweep_of(text), "sweep.textproto").runs.size(), 10001u);
}

}  // namespace
}  // namespace jetchar::sweeps
