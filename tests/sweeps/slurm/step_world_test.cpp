#include "sweeps/slurm/step_world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

namespace jetchar::sweeps {
namespace {

using ::testing::HasSubstr;
using Variables = std::map<std::string, std::string>;

Environment step_environment_of(Variables variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    return found != variables.end() ? std::optional<std::string>(found->second) : std::nullopt;
  };
}

// What srun 22.05 gives task 1 of `srun -N3 -n3` in job 812 (the variables read, as observed).
Variables task_of_step() {
  return {{"SLURM_JOB_ID", "812"},
          {"SLURM_JOBID", "812"},
          {"SLURM_STEP_ID", "0"},
          {"SLURM_STEPID", "0"},
          {"SLURM_NTASKS", "3"},
          {"SLURM_PROCID", "1"},
          {"SLURM_NODEID", "1"},
          {"SLURM_STEP_NODELIST", "b[1-3]"},
          {"SLURM_JOB_NODELIST", "b[1-3]"},
          {"SLURM_NODELIST", "b[1-3]"},
          {"SLURM_STEP_NUM_TASKS", "3"}};
}

std::optional<SlurmStepWorld> world_of(const Variables& variables, const std::optional<std::string>& addr = {},
                                       std::optional<std::uint32_t> port = {}) {
  return slurm_step_world(step_environment_of(variables), addr, port);
}

std::string step_world_error_of(const Variables& variables) {
  try {
    world_of(variables);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SlurmStepWorld, ATaskOfAMultiTaskStepIsANodeOfTheWorld) {
  const auto world = world_of(task_of_step());
  ASSERT_TRUE(world.has_value());
  EXPECT_EQ(world->nnodes, 3U);
  EXPECT_EQ(world->node_rank, 1U);
  EXPECT_EQ(world->master_addr, "b1");
  EXPECT_EQ(world->master_port, 29500U + 812U);
}

TEST(SlurmStepWorld, ThePortComesFromTheJobIdModuloItsSpan) {
  auto variables = task_of_step();
  variables["SLURM_JOB_ID"] = "1234567";
  EXPECT_EQ(world_of(variables)->master_port, 29500U + 1567U);
  variables["SLURM_JOB_ID"] = "21000";
  EXPECT_EQ(world_of(variables)->master_port, 29500U);
  variables["SLURM_JOB_ID"] = "2999";
  EXPECT_EQ(world_of(variables)->master_port, 32499U) << "the highest port, below the ephemeral range (32768)";
  variables.erase("SLURM_JOB_ID");
  variables["SLURM_JOBID"] = "2998";
  EXPECT_EQ(world_of(variables)->master_port, 29500U + 2998U) << "the older name";
}

TEST(SlurmStepWorld, TheAddressIsTheFirstNodeOfTheStepThenOfTheJob) {
  auto variables = task_of_step();
  variables["SLURM_STEP_NODELIST"] = "jetson-[07-09],b3";
  variables["SLURM_JOB_NODELIST"] = "other[1-9]";
  EXPECT_EQ(world_of(variables)->master_addr, "jetson-07");
  variables.erase("SLURM_STEP_NODELIST");
  EXPECT_EQ(world_of(variables)->master_addr, "other1");
  variables.erase("SLURM_JOB_NODELIST");
  variables["SLURM_NODELIST"] = "c5,b[1-3]";
  EXPECT_EQ(world_of(variables)->master_addr, "c5");
}

TEST(SlurmStepWorld, AnAddressOrPortTheUserGaveStandsAndItsVariableIsNotRead) {
  auto variables = task_of_step();
  variables["SLURM_STEP_NODELIST"] = "b[1-";
  variables["SLURM_JOB_ID"] = "not-a-job";
  const auto world = world_of(variables, std::string("10.0.0.7"), 40000U);
  ASSERT_TRUE(world.has_value());
  EXPECT_EQ(world->master_addr, "10.0.0.7");
  EXPECT_EQ(world->master_port, 40000U);
  EXPECT_EQ(world->nnodes, 3U);
}

TEST(SlurmStepWorld, NoWorldOutsideAMultiTaskSrunStep) {
  EXPECT_FALSE(world_of({}).has_value()) << "not under Slurm";
  auto single = task_of_step();
  single["SLURM_NTASKS"] = "1";
  single["SLURM_PROCID"] = "0";
  EXPECT_FALSE(world_of(single).has_value()) << "a step of one task";
  // A batch script's own process: the job's SLURM_NTASKS and SLURM_PROCID=0, but no step id.
  auto batch = task_of_step();
  batch.erase("SLURM_STEP_ID");
  batch.erase("SLURM_STEPID");
  batch.erase("SLURM_STEP_NODELIST");
  batch["SLURM_PROCID"] = "0";
  EXPECT_FALSE(world_of(batch).has_value()) << "the batch script itself";
  auto no_procid = task_of_step();
  no_procid.erase("SLURM_PROCID");
  EXPECT_FALSE(world_of(no_procid).has_value());
  auto old_name = task_of_step();
  old_name.erase("SLURM_STEP_ID");
  EXPECT_TRUE(world_of(old_name).has_value()) << "SLURM_STEPID alone marks a step";
}

TEST(SlurmStepWorld, BadValuesAreNamedWithTheVariableTheValueAndWhatIsValid) {
  auto variables = task_of_step();
  variables["SLURM_PROCID"] = "one";
  EXPECT_THAT(step_world_error_of(variables),
              HasSubstr("SLURM_PROCID 'one' is not a task of the srun step; valid: 0 to 2"));
  variables["SLURM_PROCID"] = "3";
  EXPECT_THAT(step_world_error_of(variables),
              HasSubstr("SLURM_PROCID '3' is not a task of the srun step; valid: 0 to 2"));
  variables["SLURM_PROCID"] = "-1";
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("SLURM_PROCID '-1'"));
  variables["SLURM_PROCID"] = "";
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("SLURM_PROCID ''"));

  variables = task_of_step();
  variables["SLURM_NTASKS"] = "3x";
  EXPECT_THAT(step_world_error_of(variables),
              HasSubstr("SLURM_NTASKS '3x' is not a number of tasks; valid: 1 to 1024"));
  variables["SLURM_NTASKS"] = "0";
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("SLURM_NTASKS '0'"));
  variables["SLURM_NTASKS"] = "1025";
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("SLURM_NTASKS '1025'"));

  variables = task_of_step();
  variables["SLURM_STEP_NODELIST"] = "b[1-3";
  EXPECT_THAT(step_world_error_of(variables),
              HasSubstr("SLURM_STEP_NODELIST: hostlist 'b[1-3': a '[' that no ']' closes"));
  variables.erase("SLURM_STEP_NODELIST");
  variables.erase("SLURM_JOB_NODELIST");
  variables.erase("SLURM_NODELIST");
  EXPECT_THAT(step_world_error_of(variables),
              HasSubstr("none of SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, SLURM_NODELIST"));

  variables = task_of_step();
  variables["SLURM_JOB_ID"] = "12a";
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("SLURM_JOB_ID '12a' is not a job id"));
  variables.erase("SLURM_JOB_ID");
  variables.erase("SLURM_JOBID");
  EXPECT_THAT(step_world_error_of(variables), HasSubstr("neither SLURM_JOB_ID nor SLURM_JOBID is set"));
}

}  // namespace
}  // namespace jetchar::sweeps
