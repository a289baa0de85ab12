#include "experiments/slurm_submission.h"

#include <gtest/gtest.h>

#include <string>

namespace jetchar::experiments {
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
  for (const char* line : {"#SBATCH --array=1,4\n", "#SBATCH --exclusive\n", "#SBATCH --requeue\n",
                           "#SBATCH --nodelist=b2\n", "#SBATCH --partition=jetsons\n", "#SBATCH --constraint=agx-orin\n",
                           "#SBATCH --job-name=jetchar-modes-b2\n"}) {
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
}  // namespace jetchar::experiments
