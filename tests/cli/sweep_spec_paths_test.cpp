// A spec's relative paths resolve from the spec's own folder (sweeps/spec_paths.h), through the real
// jetchar: the shipped examples plan from any working directory, from the checkout and from a copy
// laid out as the package installs them (share/jetchar/examples); a sweep's results folder keeps
// the spec with its paths resolved, so that `sweep resume` works from anywhere.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;
using jetchar::testing::read_text;
using ::testing::HasSubstr;

class SweepSpecPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar::testing::jetchar_executable())) {
      GTEST_SKIP() << jetchar::testing::jetchar_executable() << " is not built";
    }
    fs::create_directories(elsewhere_);
  }

  struct Outcome {
    int code;
    std::string out;
    std::string err;
    std::string text() const { return "exit " + std::to_string(code) + "\nstdout:\n" + out + "\nstderr:\n" + err; }
  };

  /// jetchar with `args` in the working directory `cwd`.
  Outcome run_in(const fs::path& cwd, const std::vector<std::string>& args) {
    const fs::path out = dir_.path() / "out", err = dir_.path() / "err";
    const int code = jetchar::testing::wait_exit_status(jetchar::testing::spawn_jetchar(args, out, err, cwd));
    return {code, read_text(out), read_text(err)};
  }

  testing::TempDir dir_;
  fs::path elsewhere_ = dir_.path() / "elsewhere";  ///< a folder with nothing beside it
};

TEST_F(SweepSpecPathsTest, TheSquadExamplePlansFromAnyFolderAndFromWhereThePackageInstallsIt) {
  const fs::path installed = dir_.path() / "usr" / "share" / "jetchar" / "examples";
  fs::create_directories(installed);
  fs::copy(jetchar::testing::source_dir() / "examples", installed, fs::copy_options::recursive);
  const std::string name = "sim-agx-orin-squad-inference.textproto";
  for (const fs::path& spec :
       {jetchar::testing::source_dir() / "examples" / name, fs::path("../usr/share/jetchar/examples") / name}) {
    SCOPED_TRACE(spec.string());
    const Outcome plan = run_in(elsewhere_, {"sweep", "plan", spec.string()});
    ASSERT_EQ(plan.code, 0) << plan.text();
    EXPECT_THAT(plan.out, HasSubstr("8 runs, "));
    EXPECT_THAT(plan.out, HasSubstr("all valid on this board"));
  }
}

TEST_F(SweepSpecPathsTest, TheResultsFolderKeepsTheResolvedPathsAndResumesFromAnyFolder) {
  const fs::path specs = dir_.path() / "specs";
  fs::create_directories(specs / "data");
  fs::copy(jetchar::testing::source_dir() / "examples" / "squad", specs / "data", fs::copy_options::recursive);
  dir_.write("specs/s.textproto", R"(# data/ lies beside this file
name: "paths"
board: "sim:agx-orin-r36"
base {
  workload {
    model: "bert-tiny-qa"
    dataset: "squad:data?stride=32&vocab=data/vocab.txt"
    task: INFER
    batch_size: 1
    sequence_length: 128
    device: "cpu"
    threads: 1
    inference { warmup_batches: 0 min_queries: 2 }
  }
  measurement { sample_rate_hz: 100 }
}
)");
  // Run from a folder that has no data/: the spec's folder has it.
  const Outcome run = run_in(elsewhere_, {"sweep", "run", "../specs/s.textproto", "--results", "../results"});
  ASSERT_EQ(run.code, 0) << run.text();
  EXPECT_THAT(run.out, HasSubstr("1 of 1 runs stored (1 run now, 0 not OK)"));

  // The copy holds the paths the sweep read, absolute, and the spec's comments.
  const fs::path data = fs::canonical(specs / "data");
  const std::string copy = read_text(dir_.path() / "results" / "sweep.textproto");
  EXPECT_THAT(copy, HasSubstr("# data/ lies beside this file\n"));
  EXPECT_THAT(copy, HasSubstr("dataset: \"squad:" + data.string() +
                              "?stride=32&vocab=" + (data / "vocab.txt").string() + "\"\n"));

  // A resume from another folder reads the copy; the same spec from another folder is the same sweep.
  const Outcome resume = run_in(dir_.path(), {"sweep", "resume", "results"});
  ASSERT_EQ(resume.code, 0) << resume.text();
  EXPECT_THAT(resume.out, HasSubstr("1 of 1 runs stored (0 run now, 0 not OK)"));
  const Outcome again = run_in(specs, {"sweep", "run", "s.textproto", "--results", "../results"});
  ASSERT_EQ(again.code, 0) << again.text();
  EXPECT_THAT(again.out, HasSubstr("1 of 1 runs stored (0 run now, 0 not OK)"));

  // The stored runs name the data set as read.
  const Outcome csv = run_in(elsewhere_, {"results", "export", "../results", "--csv"});
  ASSERT_EQ(csv.code, 0) << csv.text();
  EXPECT_THAT(csv.out, HasSubstr(",squad:" + data.string() + "?"));
}

}  // namespace
}  // namespace jetchar::cli
