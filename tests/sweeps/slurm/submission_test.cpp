#include "sweeps/slurm/submission.h"

#include <gtest/gtest.h>

#include <string>

namespace jetchar::sweeps {
namespace {

SlurmSubmitOptions options() {
  SlurmSubmitOptions o;
  o.results = "/shared/fleet";
  o.sweep_name = "modes";
  o.jetchar = "/opt/jetchar/bin/jetchar";
  return o;
}

TEST(SlurmSubmission, NodeListDealsChunksRoundRobinOneArrayPinnedPerNode) {
  auto o = options();
  o.nodes = {"b1", "b2", "b3"};
  o.runs_per_task = 2;
  o.partition = "jetsons";
  o.constraint = "agx-orin";
  const auto s = plan_slurm_submission(13, o);  // 7 chunks: 0..6
  EXPECT_EQ(s.chunks, 7u);
  ASSERT_EQ(s.arrays.size(), 3u);
  EXPECT_EQ(s.arrays[0].chunks, (std::vector<std::size_t>{0, 3, 6}));
  EXPECT_EQ(s.arrays[1].chunks, (std::vector<std::size_t>{1, 4}));
  const std::string& b2 = s.arrays[1].text;
  for (const char* line :
       {"#SBATCH --array=1,4\n", "#SBATCH --exclusive\n", "#SBATCH --requeue\n", "#SBATCH --nodelist=b2\n",
        "#SBATCH --partition=jetsons\n", "#SBATCH --constraint=agx-orin\n", "#SBATCH --job-name=jetchar-modes-b2\n"}) {
    EXPECT_NE(b2.find(line), std::string::npos) << line << " missing from\n" << b2;
  }
  EXPECT_NE(b2.find("exec '/opt/jetchar/bin/jetchar' sweep task '/shared/fleet' --chunk \"$SLURM_ARRAY_TASK_ID\" "
                    "--runs-per-task 2 --node-config '/etc/jetchar/node.textproto'\n"),
            std::string::npos)
      << b2;
  EXPECT_NE(s.merge.text.find("results merge '/shared/fleet' \"${stores[@]}\""), std::string::npos) << s.merge.text;
  EXPECT_NE(s.merge.text.find("report '/shared/fleet' -o '/shared/fleet/report.html'"), std::string::npos);
  EXPECT_EQ(s.merge.text.find("--exclusive"), std::string::npos) << "the merge job needs no board";
}

TEST(SlurmSubmission, WithoutNodesOneArrayLimitedToNAtATime) {
  auto o = options();
  o.node_count = 4;
  o.redact_serial = true;
  const auto s = plan_slurm_submission(24, o);
  ASSERT_EQ(s.arrays.size(), 1u);
  EXPECT_NE(s.arrays[0].text.find("#SBATCH --array=0-23%4\n"), std::string::npos) << s.arrays[0].text;
  EXPECT_EQ(s.arrays[0].text.find("--nodelist"), std::string::npos);
  EXPECT_NE(s.arrays[0].text.find(" --redact-serial\n"), std::string::npos);
  // More nodes than chunks: only the nodes that get a chunk get an array.
  auto many = options();
  many.nodes = {"a", "b", "c"};
  EXPECT_EQ(plan_slurm_submission(2, many).arrays.size(), 2u);
}

// Board kinds: each kind's runs in arrays of its own, routed by its feature (--constraint),
// pinned where the kind lists nodes, every task told its kind; one final job after them all.
TEST(SlurmSubmission, OneArrayPerKindConstrainedToItsFeature) {
  auto o = options();
  o.runs_per_task = 2;
  o.node_count = 3;
  const auto s = plan_slurm_submission(
      {SlurmKindRuns{"agx-orin", "agx-orin", {}, 8}, SlurmKindRuns{"orin-nano", "nano8g", {}, 5}}, o);
  EXPECT_EQ(s.runs, 13u);
  EXPECT_EQ(s.chunks, 7u);  // 4 + 3: chunks are numbered within each kind
  ASSERT_EQ(s.arrays.size(), 2u);
  EXPECT_EQ(s.arrays[0].name, "array-agx-orin.sbatch");
  EXPECT_EQ(s.arrays[1].kind, "orin-nano");
  const std::string& nano = s.arrays[1].text;
  for (const char* line :
       {"#SBATCH --array=0-2%3\n", "#SBATCH --constraint=nano8g\n", "#SBATCH --job-name=jetchar-modes-orin-nano\n",
        " sweep task '/shared/fleet' --kind 'orin-nano' --chunk \"$SLURM_ARRAY_TASK_ID\" "}) {
    EXPECT_NE(nano.find(line), std::string::npos) << line << " missing from\n" << nano;
  }
  EXPECT_EQ(nano.find("--nodelist"), std::string::npos);
  EXPECT_NE(s.arrays[0].text.find("#SBATCH --constraint=agx-orin\n"), std::string::npos);

  auto pinned = options();
  const auto p = plan_slurm_submission(
      {SlurmKindRuns{"agx-orin", "agx-orin", {"b1", "b2"}, 3}, SlurmKindRuns{"orin-nano", "nano8g", {"b3"}, 2}},
      pinned);
  ASSERT_EQ(p.arrays.size(), 3u);
  EXPECT_EQ(p.arrays[1].name, "array-agx-orin-b2.sbatch");
  EXPECT_EQ(p.arrays[1].chunks, std::vector<std::size_t>{1});
  EXPECT_EQ(p.arrays[2].chunks, (std::vector<std::size_t>{0, 1}));
  EXPECT_NE(p.arrays[2].text.find("#SBATCH --nodelist=b3\n"), std::string::npos);

  // A node count limits the unpinned kinds; a pinned kind runs one task per node at a time.
  auto both = options();
  both.node_count = 2;
  const auto mixed = plan_slurm_submission(
      {SlurmKindRuns{"agx-orin", "agx-orin", {}, 3}, SlurmKindRuns{"orin-nano", "orin-nano", {"b3"}, 2}}, both);
  ASSERT_EQ(mixed.arrays.size(), 2u);
  EXPECT_NE(mixed.arrays[0].text.find("#SBATCH --array=0-2%2\n"), std::string::npos) << mixed.arrays[0].text;
  EXPECT_NE(mixed.arrays[1].text.find("#SBATCH --array=0,1\n"), std::string::npos) << mixed.arrays[1].text;
  // A kind without runs is named.
  try {
    plan_slurm_submission({SlurmKindRuns{"agx-orin", "agx-orin", {}, 0}}, options());
    ADD_FAILURE() << "a kind without runs was submitted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kind agx-orin: "), std::string::npos) << e.what();
  }
}

// The final job restores every node that ran a task before it merges: its own node in place,
// each other node Slurm can run a job on in a job of its own, waited for.
TEST(SlurmSubmission, TheFinalJobRestoresEveryNodeThatRanATaskBeforeTheMerge) {
  auto o = options();
  o.node_count = 2;
  o.partition = "jetsons";
  o.node_config = "/cfg/%n.textproto";
  const auto s = plan_slurm_submission(6, o);
  const std::string& text = s.merge.text;
  const std::string restore =
      "'/opt/jetchar/bin/jetchar' sweep task '/shared/fleet' --restore-only --node-config '/cfg/%n.textproto'";
  const auto own = text.find(restore + " --node \"$node\"");
  const auto others =
      text.find("sbatch --wait --quiet --job-name=jetchar-modes-restore-\"$node\" --nodelist=\"$node\"");
  const auto merge = text.find("results merge '/shared/fleet'");
  ASSERT_NE(own, std::string::npos) << text;
  ASSERT_NE(others, std::string::npos) << text;
  ASSERT_NE(merge, std::string::npos) << text;
  EXPECT_LT(own, merge);
  EXPECT_LT(others, merge);
  EXPECT_NE(text.find("--partition=jetsons"), std::string::npos);
  EXPECT_NE(text.find("for dir in '/shared/fleet'/nodes/*/; do"), std::string::npos) << text;
  EXPECT_NE(text.find("jetchar-restore.service"), std::string::npos) << "a node Slurm cannot reach is named";
}

// A run of several machines is one job of that many nodes, one task per node in one srun step,
// pinned to nodes of the list in turn; the runs of one machine are chunked apart; the final job
// depends on every job.
TEST(SlurmSubmission, AMultiNodeRunIsOneJobOfItsNodesBesideTheArrays) {
  auto o = options();
  o.nodes = {"b1", "b2", "b3"};
  o.partition = "jetsons";
  o.node_config = "/cfg/%n.textproto";
  const auto s = plan_slurm_submission(
      {SlurmKindRuns{"", "", o.nodes, 2, {SlurmMultiNodeRun{"0001-r0", 3}, SlurmMultiNodeRun{"0003-r0", 2}}}}, o);
  EXPECT_EQ(s.runs, 4u);
  EXPECT_EQ(s.chunks, 2u);
  ASSERT_EQ(s.arrays.size(), 2u) << "the 2 runs of one machine on b1 and b2";
  ASSERT_EQ(s.worlds.size(), 2u);
  const auto& three = s.worlds[0];
  EXPECT_EQ(three.name, "run-0001-r0.sbatch");
  EXPECT_EQ(three.run_id, "0001-r0");
  EXPECT_EQ(three.run_nodes, 3u);
  EXPECT_EQ(three.nodes, (std::vector<std::string>{"b1", "b2", "b3"}));
  EXPECT_TRUE(three.chunks.empty());
  const std::string srun =
      "exec srun --nodes=3 --ntasks=3 --ntasks-per-node=1 --kill-on-bad-exit=0 '/opt/jetchar/bin/jetchar' sweep task "
      "'/shared/fleet' --run '0001-r0' --node-config '/cfg/%n.textproto'\n";
  for (const std::string& line :
       {std::string("#SBATCH --job-name=jetchar-modes-run-0001-r0\n"), std::string("#SBATCH --nodes=3\n"),
        std::string("#SBATCH --ntasks-per-node=1\n"), std::string("#SBATCH --exclusive\n"),
        std::string("#SBATCH --requeue\n"), std::string("#SBATCH --nodelist=b1,b2,b3\n"),
        std::string("#SBATCH --partition=jetsons\n"), std::string("#SBATCH --output=/shared/fleet/slurm/%x-%j.out\n"),
        srun}) {
    EXPECT_NE(three.text.find(line), std::string::npos) << line << " missing from\n" << three.text;
  }
  EXPECT_EQ(three.text.find("--array"), std::string::npos);
  EXPECT_EQ(three.text.find("--chunk"), std::string::npos);
  // The next run's nodes follow in turn.
  EXPECT_EQ(s.worlds[1].nodes, (std::vector<std::string>{"b3", "b1"}));
  EXPECT_NE(s.worlds[1].text.find("#SBATCH --nodelist=b3,b1\n"), std::string::npos) << s.worlds[1].text;

  // Without a node list: any nodes; a node count must leave room for the run's nodes.
  auto any = options();
  any.redact_serial = true;
  const auto unpinned = plan_slurm_submission({SlurmKindRuns{"", "", {}, 0, {SlurmMultiNodeRun{"0000-r0", 3}}}}, any);
  ASSERT_EQ(unpinned.worlds.size(), 1u);
  EXPECT_TRUE(unpinned.arrays.empty()) << "no run of one machine: no array";
  EXPECT_EQ(unpinned.worlds[0].text.find("--nodelist"), std::string::npos) << unpinned.worlds[0].text;
  EXPECT_NE(unpinned.worlds[0].text.find(" --redact-serial\n"), std::string::npos);
  EXPECT_NE(unpinned.merge.text.find("results merge"), std::string::npos);

  // A kind's multi-node run: its feature, its kind told to every task.
  const auto kinds = plan_slurm_submission(
      {SlurmKindRuns{"agx-orin", "agx-orin", {}, 1, {SlurmMultiNodeRun{"agx-orin.0002-r0", 2}}}}, options());
  ASSERT_EQ(kinds.worlds.size(), 1u);
  for (const char* line : {"#SBATCH --constraint=agx-orin\n", " --kind 'agx-orin' --run 'agx-orin.0002-r0' ",
                           "#SBATCH --job-name=jetchar-modes-run-agx-orin.0002-r0\n"}) {
    EXPECT_NE(kinds.worlds[0].text.find(line), std::string::npos) << line << " missing from\n" << kinds.worlds[0].text;
  }
}

// A run of more nodes than the sweep may use is refused at submit, naming the run, its nodes and
// the nodes given.
TEST(SlurmSubmission, AMultiNodeRunOfMoreNodesThanGivenIsRefused) {
  auto o = options();
  o.nodes = {"b1", "b2"};
  try {
    plan_slurm_submission({SlurmKindRuns{"", "", o.nodes, 1, {SlurmMultiNodeRun{"0004-r1", 3}}}}, o);
    ADD_FAILURE() << "a 3-node run was submitted to 2 nodes";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const char* part : {"run 0004-r1 trains on 3 nodes", "--nodes gives 2 nodes (b1,b2)", "at least 3 nodes"})
      EXPECT_NE(what.find(part), std::string::npos) << part << " missing from: " << what;
  }
  try {
    plan_slurm_submission({SlurmKindRuns{"nano", "nano", {"n1"}, 0, {SlurmMultiNodeRun{"nano.0000-r0", 2}}}},
                          options());
    ADD_FAILURE() << "a 2-node run was submitted to a kind of 1 node";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kind nano: run nano.0000-r0 trains on 2 nodes"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("the kind's `nodes` gives 1 node (n1)"), std::string::npos) << e.what();
  }
  auto counted = options();
  counted.node_count = 2;
  try {
    plan_slurm_submission({SlurmKindRuns{"", "", {}, 4, {SlurmMultiNodeRun{"0002-r0", 3}}}}, counted);
    ADD_FAILURE() << "a 3-node run was submitted under --nodes 2";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("run 0002-r0 trains on 3 nodes (workload.distributed.nnodes) but --nodes 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(SlurmSubmission, ChunksCoverThePlanOnce) {
  std::size_t covered = 0;
  for (std::size_t c = 0; c < 5; ++c) {
    const auto range = chunk_range(c, 3, 13);
    EXPECT_EQ(range.first, covered);
    covered = range.last;
  }
  EXPECT_EQ(covered, 13u);
  EXPECT_EQ(chunk_range(9, 3, 13).first, chunk_range(9, 3, 13).last);
}

TEST(SlurmSubmission, BadOptionsAreNamed) {
  auto o = options();
  o.runs_per_task = 0;
  EXPECT_THROW(plan_slurm_submission(4, o), std::invalid_argument);
  EXPECT_THROW(plan_slurm_submission(0, options()), std::invalid_argument);
  try {
    parse_node_names("b[1-3]", "--nodes");
    ADD_FAILURE() << "a hostlist was taken for a node name";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("scontrol show hostnames"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_node_names("b1,,b2", "--nodes"), std::invalid_argument);
  EXPECT_THROW(parse_node_names("b1,b1", "--nodes"), std::invalid_argument);
  EXPECT_EQ(parse_node_names("b1,jetson-02", "--nodes"), (std::vector<std::string>{"b1", "jetson-02"}));
}

TEST(SlurmSubmission, QuotingAndNodeConfigPaths) {
  EXPECT_EQ(shell_quoted("it's"), "'it'\\''s'");
  EXPECT_EQ(node_config_path("/cfg/%n.textproto", "b2"), "/cfg/b2.textproto");
  EXPECT_EQ(node_config_path("/etc/jetchar/node.textproto", "b2"), "/etc/jetchar/node.textproto");
}

}  // namespace
}  // namespace jetchar::sweeps
