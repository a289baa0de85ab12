// `jetchar help`: a command's help as COMMAND --help shows it, and the manual page and bash
// completion generated from the command definitions, checked with groff and a real bash.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using jetchar::testing::read_text;

struct HelpOutcome {
  int code = -1;
  std::string out;
  std::string err;
};

class HelpCommandIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar::testing::jetchar_executable())) {
      GTEST_SKIP() << jetchar::testing::jetchar_executable() << " is not built";
    }
  }

  HelpOutcome run(const std::vector<std::string>& args) {
    const fs::path out = dir_.path() / fmt::format("{}.out", ++runs_);
    const fs::path err = dir_.path() / fmt::format("{}.err", runs_);
    HelpOutcome outcome;
    outcome.code = jetchar::testing::run_jetchar(args, out, err);
    outcome.out = read_text(out);
    outcome.err = read_text(err);
    return outcome;
  }

  /// What `_jetchar` offers for the words typed so far (the last one being completed).
  std::string complete(const fs::path& script, const std::vector<std::string>& words) {
    std::string array;
    for (const auto& word : words) array += fmt::format("'{}' ", word);
    const fs::path out = dir_.path() / fmt::format("complete{}.out", ++runs_);
    const std::string command = fmt::format(
        "bash -c \"source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _jetchar; echo \\\"\\${{COMPREPLY[*]}}\\\"\" > '{}' "
        "2>&1",
        script.string(), array, words.size() - 1, out.string());
    EXPECT_EQ(std::system(command.c_str()), 0) << command << "\n" << read_text(out);
    std::string reply = read_text(out);
    while (!reply.empty() && reply.back() == '\n') reply.pop_back();
    return reply;
  }

  jetchar::testing::TempDir dir_;
  int runs_ = 0;
};

/// The help text without its usage line, which names the program as it was started.
std::string without_usage(const std::string& help) {
  return std::regex_replace(help, std::regex("Usage: [^\\n]*\\n"), "");
}

TEST_F(HelpCommandIntegration, HelpOfACommandIsItsDashDashHelp) {
  for (const std::vector<std::string>& path :
       {std::vector<std::string>{"sweep", "run"}, {"device", "info"}, {"analyze"}}) {
    std::vector<std::string> help_args = {"help"};
    help_args.insert(help_args.end(), path.begin(), path.end());
    std::vector<std::string> dash_args = path;
    dash_args.push_back("--help");
    const HelpOutcome help = run(help_args);
    const HelpOutcome dash = run(dash_args);
    ASSERT_EQ(help.code, 0) << help.err;
    EXPECT_EQ(without_usage(help.out), without_usage(dash.out)) << fmt::format("{}", fmt::join(path, " "));
    EXPECT_THAT(help.out, HasSubstr(fmt::format("Usage: jetchar {}", fmt::join(path, " "))));
  }
  const HelpOutcome unknown = run({"help", "sweep", "walk"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("'walk' is not a command of `jetchar sweep`; valid: plan, run, resume"));
  EXPECT_EQ(run({"help", "sweep", "--man"}).code, 2);
}

TEST_F(HelpCommandIntegration, ManualPageCoversEveryCommandAndIsCleanRoff) {
  const fs::path page = dir_.path() / "jetchar.1";
  const HelpOutcome made = run({"help", "--man", "-o", page.string()});
  ASSERT_EQ(made.code, 0) << made.err;
  const std::string text = read_text(page);
  EXPECT_THAT(text, HasSubstr(".TH JETCHAR 1"));
  // Every command has its section, with its options and the examples its --help shows.
  for (const std::string leaf :
       {"jetchar device info", "jetchar sweep run", "jetchar analyze predict", "jetchar report", "jetchar help"}) {
    EXPECT_THAT(text, HasSubstr(fmt::format(".SS \"{}\"", leaf)));
  }
  EXPECT_THAT(text, HasSubstr("\\fB\\-\\-results\\fR"));
  EXPECT_THAT(text, HasSubstr("jetchar sweep plan examples/sim\\-agx\\-orin\\-power\\-modes.textproto"));
  EXPECT_THAT(text, HasSubstr("130  interrupted"));
  // groff in warning mode: no warning, no error, and the page renders.
  const fs::path warnings = dir_.path() / "groff.err";
  const std::string command = fmt::format("groff -man -ww -z -T utf8 '{}' 2> '{}'", page.string(), warnings.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(warnings);
  EXPECT_EQ(read_text(warnings), "");
}

TEST_F(HelpCommandIntegration, BashCompletionFollowsTheCommandTree) {
  const fs::path script = dir_.path() / "jetchar.bash";
  ASSERT_EQ(run({"help", "--bash-completion", "-o", script.string()}).code, 0);
  EXPECT_EQ(complete(script, {"jetchar", "sw"}), "sweep");
  const std::string sweep = complete(script, {"jetchar", "sweep", ""});
  for (const std::string word : {"plan", "run", "resume", "--help"}) EXPECT_THAT(sweep, HasSubstr(word));
  EXPECT_EQ(complete(script, {"jetchar", "sweep", "run", "--res"}), "--results");
  EXPECT_THAT(complete(script, {"jetchar", "device", "info", "--"}), HasSubstr("--board"));
  // After a leaf command, a word that is not an option is a file: left to bash's default.
  EXPECT_EQ(complete(script, {"jetchar", "sweep", "run", "exa"}), "");
  // An option's value does not derail the path.
  EXPECT_EQ(complete(script, {"jetchar", "results", "li"}), "list");
}

}  // namespace
}  // namespace jetchar::cli
