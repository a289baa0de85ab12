#include "sweeps/fleet/multi_node_run.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "results/store.h"
#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
namespace {

namespace fs = std::filesystem;
using Variables = std::map<std::string, std::string>;

Environment environment_of(Variables variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    return found != variables.end() ? std::optional<std::string>(found->second) : std::nullopt;
  };
}

// Task `rank` of an srun step of `tasks` tasks in job 4711 on nodes b1..b3.
Variables task_of_step(int rank, int tasks) {
  return {{"SLURM_JOB_ID", "4711"},
          {"SLURM_STEP_ID", "0"},
          {"SLURM_NTASKS", std::to_string(tasks)},
          {"SLURM_PROCID", std::to_string(rank)},
          {"SLURM_STEP_NODELIST", "b[1-3]"}};
}

// Runs 0000 and 0002 of one machine, 0001 of three machines (sweep plans group by power mode,
// here all one mode, so plan order is spec order).
SweepPlan mixed_plan(const std::string& distributed = "nnodes: 3") {
  return plan_sweep(parse_sweep_spec(R"(
name: "mixed"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
runs { }
runs { workload { distributed { )" + distributed +
                                         R"( } } }
runs { workload { batch_size: 16 } }
)",
                                     "mixed.textproto"),
                    "mixed.textproto");
}

TEST(MultiNodeRun, TheRunsOfOneMachineAreChunkedApartFromTheMultiNodeOnes) {
  const auto plan = mixed_plan();
  ASSERT_EQ(plan.runs.size(), 3u);
  EXPECT_EQ(run_node_count(plan.runs[0].spec), 1u);
  EXPECT_EQ(run_node_count(plan.runs[1].spec), 3u);
  const auto single = single_node_runs(plan);
  ASSERT_EQ(single.size(), 2u);
  EXPECT_EQ(single[0].run_id, "0000-r0");
  EXPECT_EQ(single[1].run_id, "0002-r0");
}

// A sweep's multi-node run needs no port in its spec: the Slurm job gives it. An experiment
// spec (one run started by hand) still must name it.
TEST(MultiNodeRun, ASweepsMultiNodeRunTakesItsPortFromItsJob) {
  EXPECT_EQ(mixed_plan().runs[1].spec.workload().distributed().master_port(), 0u);
  EXPECT_THROW(parse_experiment_spec(
                   "workload { model: \"m\" dataset: \"d:x\" batch_size: 1 distributed { nnodes: 2 } }", "one"),
               SpecError);
}

TEST(MultiNodeRun, EachTaskOfTheStepIsPlacedInTheRunsWorld) {
  const auto run = mixed_plan().runs[1];
  const auto world = step_world_of_run(run, environment_of(task_of_step(2, 3)));
  EXPECT_EQ(world.nnodes, 3u);
  EXPECT_EQ(world.node_rank, 2u);
  EXPECT_EQ(world.master_addr, "b1");
  EXPECT_EQ(world.master_port, 29500u + 4711u % 3000u);
  auto spec = run.spec;
  place_in_world(spec, world);
  EXPECT_EQ(spec.workload().distributed().node_rank(), 2u);
  EXPECT_EQ(spec.workload().distributed().master_addr(), "b1");
  EXPECT_EQ(spec.workload().distributed().master_port(), 29500u + 4711u % 3000u);
  EXPECT_EQ(spec.workload().distributed().nnodes(), 3u);

  // What the spec gives stands.
  const auto given = mixed_plan("nnodes: 3 master_addr: \"10.0.0.1\" master_port: 40000").runs[1];
  const auto placed = step_world_of_run(given, environment_of(task_of_step(1, 3)));
  EXPECT_EQ(placed.master_addr, "10.0.0.1");
  EXPECT_EQ(placed.master_port, 40000u);
  EXPECT_EQ(placed.node_rank, 1u);
}

TEST(MultiNodeRun, OutsideAStepOfItsNodesTheRunIsRefusedByName) {
  const auto run = mixed_plan().runs[1];
  const auto error_of = [&run](const Variables& variables) -> std::string {
    try {
      step_world_of_run(run, environment_of(variables));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  // A batch script's own process: no step id.
  auto batch = task_of_step(0, 3);
  batch.erase("SLURM_STEP_ID");
  EXPECT_NE(error_of(batch).find("run 0001-r0 is a run of 3 nodes"), std::string::npos) << error_of(batch);
  EXPECT_NE(error_of(batch).find("srun step of 3 tasks"), std::string::npos) << error_of(batch);
  EXPECT_NE(error_of(task_of_step(0, 2)).find("the srun step has 2 tasks (SLURM_NTASKS 2); valid: a step of 3 tasks"),
            std::string::npos)
      << error_of(task_of_step(0, 2));
}

// Every node asks the same stores whether the world's run is stored: any node's record that is
// not INTERRUPTED (one that is runs again).
TEST(MultiNodeRun, TheRunIsStoredWhenAnyNodeHoldsARecordThatIsNotInterrupted) {
  testing::TempDir dir;
  const fs::path& results = dir.path();
  EXPECT_FALSE(node_storing_run(results, "mixed", "0001-r0")) << "no nodes folder yet";
  const auto store_run = [&](const std::string& node, const std::string& run_id, proto::RunStatus status) {
    fs::create_directories(results / "nodes" / node);
    results::ResultsStore store(results / "nodes" / node / "results.db");
    proto::RunResult result;
    result.set_sweep("mixed");
    result.set_run_id(run_id);
    result.set_status(status);
    result.mutable_context()->set_device_id("board-" + node);
    store.save(result);
  };
  store_run("b1", "0000-r0", proto::OK);
  store_run("b2", "0001-r0", proto::INTERRUPTED);
  fs::create_directories(results / "nodes" / "b3");  // a node that stored nothing yet
  EXPECT_FALSE(node_storing_run(results, "mixed", "0001-r0")) << "an INTERRUPTED record runs again";
  EXPECT_FALSE(node_storing_run(results, "other-sweep", "0000-r0"));
  EXPECT_EQ(node_storing_run(results, "mixed", "0000-r0"), "b1");
  store_run("b3", "0001-r0", proto::FAILED);
  EXPECT_EQ(node_storing_run(results, "mixed", "0001-r0"), "b3") << "a FAILED record is the world's record";
}

TEST(MultiNodeRun, SweepRunRefusesAMultiNodeRunWithoutAPort) {
  try {
    check_multi_node_runs_outside_slurm(mixed_plan(), "mixed.textproto");
    ADD_FAILURE() << "a 3-node run without a port was accepted outside Slurm";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("mixed.textproto: run 0001-r0 is a run of 3 nodes (workload.distributed.nnodes 3) without "
                        "master_port"),
              std::string::npos)
        << what;
  }
  EXPECT_NO_THROW(check_multi_node_runs_outside_slurm(mixed_plan("nnodes: 3 master_port: 29500"), "m"))
      << "a run started by hand on each machine";
}

}  // namespace
}  // namespace jetchar::sweeps
