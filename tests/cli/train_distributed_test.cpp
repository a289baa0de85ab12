// Data-parallel `jetchar train --nproc-per-node N` through the real executable: N ranks over Gloo
// on loopback follow the loss of one process training the whole global batch, report every rank's
// times and all-reduces, and fail promptly, naming the rank, when one is killed or never joins;
// the tasks of an srun step are the world's nodes, placed by Slurm's variables; two nodes, each on
// its own simulated board, record the run as node 0's with the energy of both boards summed, and as
// INVALID on both when one board cannot take the requested power mode or one board's mode changes
// during the run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "cli/exit_code.h"
#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;
using jetchar::testing::read_text;
using ::testing::HasSubstr;
using ::testing::Not;

// LeNet-5 on 384 synthetic samples: 24 global steps of 16 samples.
std::vector<std::string> train(const std::string& batch, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"train",
                                   "--model",
                                   "lenet5",
                                   "--dataset",
                                   "synthetic:1x28x28?samples=384&classes=10",
                                   "--batch",
                                   batch,
                                   "--epochs",
                                   "1",
                                   "--threads",
                                   "1",
                                   "--seed",
                                   "3",
                                   "--minibatches",
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

nlohmann::json run_json(const std::vector<std::string>& args, const fs::path& dir, const std::string& name) {
  const auto out = dir / (name + ".json"), err = dir / (name + ".err");
  EXPECT_EQ(testing::run_jetchar(args, out, err), kOk) << read_text(err);
  return nlohmann::json::parse(read_text(out));
}

#define SKIP_UNDER_EMULATION()                        \
  if (!testing::test_emulator().empty())              \
  GTEST_SKIP() << "ranks re-exec jetchar, which the " \
                  "emulator cannot start without binfmt_misc"

TEST(TrainDistributedTest, RanksFollowTheLossOfOneProcessTrainingTheWholeGlobalBatch) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto one = run_json(train("16", {}), dir.path(), "one");
  ASSERT_EQ(one["minibatches"].size(), 24U);
  for (const auto& [ranks, batch] : {std::pair{"2", "8"}, std::pair{"4", "4"}}) {
    const auto many = run_json(train(batch, {"--nproc-per-node", ranks}), dir.path(), std::string("ranks") + ranks);
    ASSERT_EQ(many["minibatches"].size(), 24U) << ranks << " ranks";
    EXPECT_EQ(many["settings"]["world_size"], std::stoi(ranks));
    for (std::size_t i = 0; i < 24; ++i) {
      const double expected = one["minibatches"][i]["loss"];
      const double got = many["minibatches"][i]["loss"];
      EXPECT_NEAR(got, expected, 1e-4 * std::max(1.0, std::abs(expected))) << ranks << " ranks, step " << i;
    }
    EXPECT_NEAR(many["epochs"][0]["mean_loss"].get<double>(), one["epochs"][0]["mean_loss"].get<double>(), 1e-4);
    EXPECT_EQ(many["epochs"][0]["samples"], 384) << "the world's samples";
  }
}

TEST(TrainDistributedTest, EveryRankReportsItsShareTimesAndAllReduces) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto json = run_json(train("8", {"--nproc-per-node", "2"}), dir.path(), "two");
  const auto& world = json["record"]["distributed"];
  EXPECT_EQ(world["world_size"], 2);
  EXPECT_EQ(world["backend"], "gloo");
  EXPECT_EQ(world["global_batch"], 16);
  ASSERT_EQ(world["ranks"].size(), 2U);
  const std::int64_t parameter_bytes = json["parameters"].get<std::int64_t>() * 4;
  for (int rank = 0; rank < 2; ++rank) {
    const auto& r = world["ranks"][rank];
    EXPECT_EQ(r.value("rank", 0), rank);
    EXPECT_EQ(std::stoll(r["samples"].get<std::string>()), 192);  // uint64 is a string in proto JSON
    // One all-reduce of every gradient per optimizer step: 24 steps.
    EXPECT_EQ(std::stoll(r["allreduce_bytes"].get<std::string>()), 24 * parameter_bytes);
    EXPECT_GT(r["allreduce_s"].get<double>(), 0);
    EXPECT_GT(r["compute_s"].get<double>(), 0);
  }
  EXPECT_TRUE(world.contains("slowest_rank"));
  EXPECT_EQ(json["record"]["status"], "OK");

  const auto table = dir.path() / "two.txt", err = dir.path() / "two.err";
  auto args = train("8", {"--nproc-per-node", "2"});
  args.erase(std::find(args.begin(), args.end(), "--json"));
  ASSERT_EQ(testing::run_jetchar(args, table, err), kOk) << read_text(err);
  EXPECT_THAT(read_text(table), HasSubstr("data-parallel: 2 ranks (gloo), global batch 16"));
}

// The pids of `parent`'s children whose command line holds `word`.
std::vector<pid_t> children_running(pid_t parent, const std::string& word) {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    std::ifstream cmdline(entry.path() / "cmdline");
    const std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (text.find(word) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// Two ranks of batch 8 for 200 epochs of 24 steps: long enough to be killed or interrupted in.
std::vector<std::string> long_two_rank_train() {
  auto args = train("8", {"--nproc-per-node", "2"});
  args[std::find(args.begin(), args.end(), "--epochs") - args.begin() + 1] = "200";
  return args;
}

// Waits up to `limit` for `child`: its exit status, or nullopt (then it is killed).
std::optional<int> wait_for(pid_t child, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return std::nullopt;
}

TEST(TrainDistributedTest, AKilledRankFailsTheRunNamingItAndNoRankIsLeft) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto out = dir.path() / "killed.json", err = dir.path() / "killed.err";
  const auto args = long_two_rank_train();
  const pid_t jetchar = testing::spawn_jetchar(args, out, err);
  std::vector<pid_t> ranks;
  for (int i = 0; i < 600 && ranks.empty(); ++i) {
    ranks = children_running(jetchar, "rank-worker");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(ranks.size(), 1U) << read_text(err);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // into the training
  ASSERT_EQ(::kill(ranks.front(), SIGKILL), 0);
  const auto status = wait_for(jetchar, std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value()) << "rank 0 still ran 60 s after rank 1 was killed";
  EXPECT_EQ(*status, kFailure) << read_text(err);
  EXPECT_THAT(read_text(err), HasSubstr("rank 1"));
  EXPECT_THAT(read_text(err), HasSubstr("SIGKILL"));
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(json["record"]["status"], "FAILED");
  EXPECT_EQ(json["record"]["distributed"]["failed_rank"], 1);
}

// Ctrl-C reaching rank 0 only (another rank may see the signal later, or never): its request to
// stop travels with the next step's gradients, so both ranks end at the same minibatch, the rank
// worker cleanly, and the record is INTERRUPTED with what both measured.
TEST(TrainDistributedTest, AnInterruptOfOneRankEndsEveryRankAtTheSameMinibatch) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto out = dir.path() / "stopped.json", err = dir.path() / "stopped.err";
  const auto args = long_two_rank_train();
  const pid_t jetchar = testing::spawn_jetchar(args, out, err);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (read_text(err).find("epoch 1/200") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << read_text(err);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto ranks = children_running(jetchar, "rank-worker");
  ASSERT_EQ(ranks.size(), 1U);
  ASSERT_EQ(::kill(jetchar, SIGINT), 0);
  const auto status = wait_for(jetchar, std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value()) << "rank 0 still ran 60 s after SIGINT";
  EXPECT_EQ(*status, kInterrupted) << read_text(err);
  EXPECT_THAT(read_text(err), HasSubstr("stopped by a signal"));
  EXPECT_THAT(read_text(err), Not(HasSubstr("rank 1 (pid"))) << "rank 1 ended cleanly";
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(json["record"]["status"], "INTERRUPTED");
  // Each rank's samples over its epochs (an entry per epoch and rank).
  std::int64_t samples[2] = {0, 0};
  for (const auto& r : json["record"]["distributed"]["ranks"])
    samples[r.value("rank", 0)] += std::stoll(r["samples"].get<std::string>());
  EXPECT_GT(samples[0], 0);
  EXPECT_EQ(samples[0], samples[1]) << "the ranks stopped at different minibatches";
  const auto epochs = json["epochs"].size();
  EXPECT_GE(epochs, 2U);
  EXPECT_LT(epochs, 200U);
}

// Rank 0 SIGKILLed: nothing is left to hold the rank it started, which dies with it.
TEST(TrainDistributedTest, RanksDieWithTheProcessThatStartedThem) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto args = long_two_rank_train();
  const pid_t jetchar = testing::spawn_jetchar(args, dir.path() / "out", dir.path() / "err");
  std::vector<pid_t> ranks;
  for (int i = 0; i < 600 && ranks.empty(); ++i) {
    ranks = children_running(jetchar, "rank-worker");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(ranks.size(), 1U) << read_text(dir.path() / "err");
  ASSERT_EQ(::kill(jetchar, SIGKILL), 0);
  ::waitpid(jetchar, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(ranks.front(), 0) != 0 && errno == ESRCH;
    if (!gone) {
      // A dead rank is a zombie until init reaps it: its state is Z.
      std::ifstream stat(fmt::format("/proc/{}/stat", ranks.front()));
      std::string line;
      std::getline(stat, line);
      const auto close = line.rfind(')');
      gone = close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "rank 1 (pid " << ranks.front() << ") outlived rank 0 by 10 s";
}

// A port nothing listens on now (the kernel's choice for a socket bound to port 0).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                     ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!bound) throw std::system_error(error, std::generic_category(), "binding a loopback socket to port 0");
  return ntohs(address.sin_port);
}

TEST(TrainDistributedTest, ARankThatNeverJoinsFailsTheRendezvousNamingIt) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto out = dir.path() / "alone.txt", err = dir.path() / "alone.err";
  // Node 1 of 2 is never started.
  auto args = train(
      "8", {"--nnodes", "2", "--node-rank", "0", "--master-port", std::to_string(free_port()), "--dist-timeout", "2"});
  args.erase(std::find(args.begin(), args.end(), "--json"));
  const pid_t jetchar = testing::spawn_jetchar(args, out, err);
  const auto status = wait_for(jetchar, std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value()) << "the rendezvous did not give up";
  EXPECT_EQ(*status, kFailure) << read_text(err);
  EXPECT_THAT(read_text(err), HasSubstr("rank 1 of 2 did not join the rendezvous at 127.0.0.1:"));
}

// Slurm's variables of an srun task, set in this process for the jetchar it starts meanwhile
// (children inherit them); the ones it found are put back after.
class SlurmTask {
 public:
  explicit SlurmTask(const std::vector<std::pair<std::string, std::string>>& variables) {
    for (const auto& [name, value] : variables) set(name, value);
  }
  void set(const std::string& name, const std::string& value) {
    const auto set_before = std::find_if(set_.begin(), set_.end(), [&](const auto& env) { return env.name() == name; });
    if (set_before != set_.end()) set_before->set(value);
    else set_.emplace_back(name, value);
  }

 private:
  std::deque<testing::ScopedEnv> set_;  // a deque: ScopedEnv does not move
};

// Two tasks of `srun -n2` on this machine: each is a node of the world by SLURM_PROCID, node 0's
// address is the first of SLURM_STEP_NODELIST; a port given stands (the job id's port is the
// Slurm test's, tests/slurm/slurm_distributed_test.sh, which runs one training across 3 nodes).
TEST(TrainDistributedTest, TheTasksOfAnSrunStepAreTheNodesOfTheWorld) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto port = std::to_string(free_port());
  SlurmTask task({{"SLURM_JOB_ID", "4711"},
                  {"SLURM_STEP_ID", "0"},
                  {"SLURM_NTASKS", "2"},
                  {"SLURM_STEP_NODELIST", "localhost,b[2-3]"},
                  {"SLURM_PROCID", "1"}});
  const pid_t node1 =
      testing::spawn_jetchar(train("8", {"--master-port", port}), dir.path() / "1.json", dir.path() / "1.err");
  task.set("SLURM_PROCID", "0");
  const auto node0 = run_json(train("8", {"--master-port", port}), dir.path(), "0");
  const auto status = wait_for(node1, std::chrono::seconds(120));
  ASSERT_TRUE(status.has_value()) << "node 1 did not end";
  ASSERT_EQ(*status, kOk) << read_text(dir.path() / "1.err");
  const auto node1_json = nlohmann::json::parse(read_text(dir.path() / "1.json"));
  for (const auto* json : {&node0, &node1_json}) {
    EXPECT_EQ((*json)["settings"]["world_size"], 2);
    EXPECT_EQ((*json)["record"]["distributed"]["world_size"], 2);
    const auto& place = (*json)["record"]["requested"]["workload"]["distributed"];
    EXPECT_EQ(place["nnodes"], 2);
    EXPECT_EQ(place["master_addr"], "localhost");
    EXPECT_EQ(place["master_port"], std::stoi(port));
  }
  EXPECT_EQ(node1_json["record"]["requested"]["workload"]["distributed"]["node_rank"], 1);
  EXPECT_EQ(node0["epochs"][0]["samples"], 384) << "the world's samples";
}

TEST(TrainDistributedTest, ABadSlurmVariableIsNamedWithItsValueAndWhatIsValid) {
  testing::TempDir dir;
  const auto err = dir.path() / "slurm.err";
  SlurmTask task({{"SLURM_JOB_ID", "4711"},
                  {"SLURM_STEP_ID", "0"},
                  {"SLURM_NTASKS", "3"},
                  {"SLURM_STEP_NODELIST", "b[1-3]"},
                  {"SLURM_PROCID", "first"}});
  EXPECT_EQ(testing::run_jetchar(train("8", {}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("SLURM_PROCID 'first' is not a task of the srun step; valid: 0 to 2"));
  task.set("SLURM_PROCID", "0");
  task.set("SLURM_STEP_NODELIST", "b[1-3");
  EXPECT_EQ(testing::run_jetchar(train("8", {}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("SLURM_STEP_NODELIST: hostlist 'b[1-3': a '[' that no ']' closes"));
  // --nnodes places the task itself: Slurm's variables are not read.
  EXPECT_EQ(testing::run_jetchar(train("8", {"--nnodes", "1", "--max-batches", "1"}), "/dev/null", err), kOk)
      << read_text(err);
}

// The control tree of a simulated board: every file and link but the sensors its model rewrites
// (CPU time in /proc/stat and the state it shares among them) and jetchar's own state (the change
// journal), as tests/slurm/slurm_test_common.sh compares it.
std::map<std::string, std::string> control_tree(const fs::path& root) {
  std::map<std::string, std::string> tree;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const auto name = it->path().filename().string();
    const auto relative = fs::relative(it->path(), root).string();
    if (relative == "var/lib/jetchar" || relative == "proc/stat" || name == ".jetchar-simulated-cpu.json" ||
        name.starts_with("hwmon") || name.starts_with("iio:device") || name.starts_with("thermal_zone")) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink()) {
      tree[relative] = "-> " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      tree[relative] = read_text(it->path());
    }
  }
  return tree;
}

// Two ranks on one board: the board's energy is both ranks' work, so its J per sample is over the
// world's 384 samples, not the first rank's 192 that its epoch window counted.
TEST(TrainDistributedTest, ABoardsEnergyPerSampleIsOverEveryRankOnIt) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto root = dir.path() / "board";
  ASSERT_EQ(testing::run_jetchar({"device", "info", "--board", "sim:agx-orin-r36", "--root", root.string()}), kOk);
  const auto json = run_json(
      train("8", {"--nproc-per-node", "2", "--board", "sim:agx-orin-r36", "--root", root.string()}), dir.path(), "two");
  const auto& epoch = json["record"]["epochs"][0];
  ASSERT_TRUE(epoch.contains("energy_j")) << json["record"].dump(1);
  EXPECT_EQ(std::stoll(epoch["samples"].get<std::string>()), 384);
  EXPECT_NEAR(epoch["energy_per_sample_j"].get<double>(), epoch["energy_j"].get<double>() / 384, 1e-12);
}

// Two nodes of one world on this machine, node `n` on the simulated board kind kinds[n] in its own
// folder (made, and its control tree kept, before the run).
class TwoNodes : public ::testing::Test {
 protected:
  void make_boards(const std::vector<std::string>& kinds) {
    kinds_ = kinds;
    for (std::size_t node = 0; node < kinds.size(); ++node) {
      const auto root = board(static_cast<int>(node));
      ASSERT_EQ(testing::run_jetchar({"device", "info", "--board", "sim:" + kinds[node], "--root", root.string()}),
                kOk);
      before_.push_back(control_tree(root));
    }
  }
  fs::path board(int node) const { return dir_.path() / fmt::format("board{}", node); }
  std::vector<std::string> on_board(int node) const {
    return {"--board", "sim:" + kinds_.at(static_cast<std::size_t>(node)), "--root", board(node).string()};
  }
  void expect_boards_restored() const {
    for (std::size_t node = 0; node < before_.size(); ++node) {
      EXPECT_EQ(control_tree(board(static_cast<int>(node))), before_[node]) << "board of node " << node;
    }
  }
  // Starts node 1 with `node1`, runs node 0 with `node0` (out and err into the test's folder as
  // node0.* and node1.*), and returns both exit statuses.
  std::pair<int, int> run_both(const std::vector<std::string>& node0, const std::vector<std::string>& node1) {
    const pid_t other = testing::spawn_jetchar(node1, path("node1.out"), path("node1.err"));
    const int status0 = testing::run_jetchar(node0, path("node0.out"), path("node0.err"));
    const auto status1 = wait_for(other, std::chrono::seconds(180));
    EXPECT_TRUE(status1.has_value()) << "node 1 did not end";
    return {status0, status1.value_or(-1)};
  }
  fs::path path(const std::string& name) const { return dir_.path() / name; }

  testing::TempDir dir_;
  std::vector<std::string> kinds_;
  std::vector<std::map<std::string, std::string>> before_;
};

std::vector<std::string> joined(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Each node measures its own board over the same epochs (every rank synchronises every step);
// node 0's record holds their sum, and each node's own figure beside it.
TEST_F(TwoNodes, NodeZerosEnergyIsTheSumOfEveryBoardsOwn) {
  SKIP_UNDER_EMULATION();
  make_boards({"agx-orin-r36", "agx-orin-r36"});
  const auto port = std::to_string(free_port());
  auto node = [&](int n) {
    return joined(train("8", {"--nnodes", "2", "--node-rank", std::to_string(n), "--master-addr", "127.0.0.1",
                              "--master-port", port, "--dist-timeout", "120"}),
                  on_board(n));
  };
  const auto [status0, status1] = run_both(node(0), node(1));
  ASSERT_EQ(status0, kOk) << read_text(path("node0.err"));
  ASSERT_EQ(status1, kOk) << read_text(path("node1.err"));
  const auto zero = nlohmann::json::parse(read_text(path("node0.out")))["record"];
  const auto one = nlohmann::json::parse(read_text(path("node1.out")))["record"];
  EXPECT_EQ(zero["status"], "OK") << zero.value("reason", "");
  EXPECT_EQ(one["status"], "OK") << one.value("reason", "");
  ASSERT_EQ(zero["epochs"].size(), 1U);
  ASSERT_EQ(one["epochs"].size(), 1U);
  const auto& own = zero["distributed"]["node_energy"];
  ASSERT_EQ(own.size(), 2U) << zero["distributed"].dump(1);
  EXPECT_EQ(own[0].value("node_rank", 0), 0);
  EXPECT_EQ(own[1].value("node_rank", 0), 1);
  const double node0_j = own[0]["energy_j"], node1_j = own[1]["energy_j"];
  EXPECT_GT(node0_j, 0);
  EXPECT_GT(node1_j, 0);
  // Node 0's own board: its figure as a record of one board would hold it; node 1's: its record's.
  EXPECT_DOUBLE_EQ(node1_j, one["epochs"][0]["energy_j"].get<double>());
  EXPECT_EQ(own[1]["board"], "sim:agx-orin-r36 (simulated, in " + board(1).string() + ")");
  EXPECT_EQ(own[1]["energy_source"], one["context"]["energy_source"]);
  const auto& epoch = zero["epochs"][0];
  EXPECT_NEAR(epoch["energy_j"].get<double>(), node0_j + node1_j, 1e-9 * (node0_j + node1_j));
  EXPECT_NEAR(epoch["energy_per_sample_j"].get<double>(), (node0_j + node1_j) / 384, 1e-9);
  EXPECT_EQ(zero["context"]["energy_source"],
            "sum over 2 boards of " + one["context"]["energy_source"].get<std::string>());
  // Node 1 keeps its own board's energy, and no one else's: per sample over its rank's 192.
  EXPECT_FALSE(one["distributed"].contains("node_energy"));
  EXPECT_NEAR(one["epochs"][0]["energy_per_sample_j"].get<double>(), node1_j / 192, 1e-9);
  EXPECT_FALSE(one["context"]["energy_source"].get<std::string>().empty());
  expect_boards_restored();

  // The table says what it sums.
  auto text = [&](int n) {
    auto args = node(n);
    args.erase(std::find(args.begin(), args.end(), "--json"));
    return args;
  };
  const auto [text0, text1] = run_both(text(0), text(1));
  ASSERT_EQ(text0, kOk) << read_text(path("node0.err"));
  ASSERT_EQ(text1, kOk) << read_text(path("node1.err"));
  EXPECT_THAT(read_text(path("node0.out")), HasSubstr("energy: sum over 2 boards of "));
  EXPECT_THAT(read_text(path("node0.out")), HasSubstr("  node 1: sim:agx-orin-r36"));
  EXPECT_THAT(read_text(path("node1.out")), Not(HasSubstr("sum over")));
}

// A sweep's run in a power mode that one node's board does not offer (the GPU of an Orin Nano
// tops out at 624.75 MHz): that node still joins the world, and every node records INVALID, naming
// it; nothing trains and both boards are back as they were.
TEST_F(TwoNodes, ABoardNotInItsModeMakesTheRunInvalidOnEveryNode) {
  SKIP_UNDER_EMULATION();
  make_boards({"agx-orin-r36", "orin-nano-r36"});
  const auto port = free_port();
  auto spec = [&](int n) {
    const auto file = path(fmt::format("node{}.textproto", n));
    std::ofstream(file) << fmt::format(R"(name: "two-nodes"
base {{
  workload {{
    model: "lenet5" dataset: "synthetic:1x28x28?samples=384&classes=10" batch_size: 8 epochs: 1 threads: 1 seed: 3
    distributed {{ nnodes: 2 node_rank: {} master_addr: "127.0.0.1" master_port: {} timeout_s: 120 }}
  }}
  device {{ gpu_freq_mhz: 1300.5 dvfs: OFF }}
}}
)",
                                       n, port);
    // Node 1's plan would be refused by its own board before the run (which would leave node 0
    // waiting for it): the run itself must find it.
    return joined(
        {"sweep", "run", file.string(), "--results", path(fmt::format("results{}", n)).string(), "--skip-validation"},
        on_board(n));
  };
  const auto [status0, status1] = run_both(spec(0), spec(1));
  // A sweep with a run that is not OK ends with kFailure, having stored it.
  EXPECT_EQ(status0, kFailure) << read_text(path("node0.err"));
  EXPECT_EQ(status1, kFailure) << read_text(path("node1.err"));
  for (int n = 0; n < 2; ++n) {
    SQLite::Database db(path(fmt::format("results{}", n)) / "results.db", SQLite::OPEN_READWRITE);
    SQLite::Statement runs(db, "SELECT status, reason FROM runs");
    ASSERT_TRUE(runs.executeStep()) << "node " << n
                                    << " stored no run: " << read_text(path(fmt::format("node{}.err", n)));
    EXPECT_EQ(runs.getColumn(0).getString(), "INVALID") << "node " << n;
    EXPECT_THAT(runs.getColumn(1).getString(),
                HasSubstr("the power mode could not be applied to the board of node 1: "))
        << "node " << n;
    EXPECT_THAT(runs.getColumn(1).getString(), Not(HasSubstr("node 0"))) << "node " << n;
    SQLite::Statement epochs(db, "SELECT COUNT(*) FROM epochs");
    ASSERT_TRUE(epochs.executeStep());
    EXPECT_EQ(epochs.getColumn(0).getInt(), 0) << "node " << n << " trained";
  }
  expect_boards_restored();
}

// Node 1's board loses a core while the world trains (as a thermal shutdown or another program
// would take it): node 1 records the run INVALID naming the change, and node 0's record, the run,
// is INVALID naming node 1 and what changed, though node 0's own board held its mode.
TEST_F(TwoNodes, AModeChangeOnAnotherNodesBoardMakesTheRunInvalid) {
  SKIP_UNDER_EMULATION();
  make_boards({"agx-orin-r36", "agx-orin-r36"});
  const auto port = std::to_string(free_port());
  auto node = [&](int n) {
    auto args = joined(train("8", {"--nnodes", "2", "--node-rank", std::to_string(n), "--master-addr", "127.0.0.1",
                                   "--master-port", port, "--dist-timeout", "120"}),
                       on_board(n));
    *std::next(std::find(args.begin(), args.end(), "--epochs")) = "3";
    return args;
  };
  const pid_t other = testing::spawn_jetchar(node(1), path("node1.out"), path("node1.err"));
  const pid_t zero = testing::spawn_jetchar(node(0), path("node0.out"), path("node0.err"));
  // Once node 1 has finished its first epoch, and before its last: a core goes offline.
  const auto online = board(1) / "sys/devices/system/cpu/cpu3/online";
  ASSERT_TRUE(fs::exists(online));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (read_text(path("node1.err")).find("epoch 1/3") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << read_text(path("node1.err"));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::ofstream(online) << "0\n";
  std::ofstream(board(1) / "sys/devices/system/cpu/online") << "0-2,4-11\n";  // as the kernel shows it
  const auto status1 = wait_for(other, std::chrono::seconds(180));
  const auto status0 = wait_for(zero, std::chrono::seconds(180));
  ASSERT_TRUE(status0 && status1) << "a node did not end";
  const auto record0 = nlohmann::json::parse(read_text(path("node0.out")))["record"];
  const auto record1 = nlohmann::json::parse(read_text(path("node1.out")))["record"];
  if (record1["epochs"].size() == 3U && record1["status"] == "OK") GTEST_SKIP() << "node 1 ended before the change";
  EXPECT_EQ(record1["status"], "INVALID") << record1.value("reason", "");
  EXPECT_THAT(record1.value("reason", ""), HasSubstr("online CPUs 0,1,2,3,4,5,6,7,8,9,10,11 became"));
  EXPECT_EQ(record0["status"], "INVALID") << record0.value("reason", "");
  EXPECT_THAT(record0.value("reason", ""),
              HasSubstr("the power mode changed during the run on node 1: online CPUs 0,1,2,3,4,5,6,7,8,9,10,11 "
                        "became"));
  EXPECT_THAT(record0.value("reason", ""), Not(HasSubstr("node 0")));
}

TEST(TrainDistributedTest, ABackendLibTorchLacksIsAClearError) {
  SKIP_UNDER_EMULATION();
  testing::TempDir dir;
  const auto err = dir.path() / "nccl.err";
  auto args = train("8", {"--nproc-per-node", "2", "--backend", "nccl"});
  const int status = testing::run_jetchar(args, "/dev/null", err);
  EXPECT_NE(status, kOk);
  EXPECT_THAT(read_text(err), HasSubstr("'nccl'"));
  EXPECT_THAT(read_text(err), HasSubstr("valid here: gloo"));
}

}  // namespace
}  // namespace jetchar::cli
