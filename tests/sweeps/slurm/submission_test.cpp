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
