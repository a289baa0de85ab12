// `jetchar frontier` through the real jetchar: the search runs real training probes (bert-tiny)
// in child processes under a real RLIMIT_AS budget; what it reports is checked against the
// probes' own verdicts and figures, not against fixed numbers (those depend on LibTorch's
// allocator and the machine).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;

using jetchar::testing::read_text;

class FrontierCommandIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::jetchar_executable())) {
      GTEST_SKIP() << testing::jetchar_executable() << " is not built";
    }
  }
  testing::TempDir dir_;
};

TEST_F(FrontierCommandIntegration, FindsTheLargestBatchUnderTheBudgetAndTimesItsSplits) {
  const auto out = dir_.path() / "frontier.json";
  const auto err = dir_.path() / "frontier.err";
  // bert-tiny at seq 64: weights, gradients and AdamW moments are about 70 MB; activations grow with
  // the batch, so 256 MiB is reached well before --max-batch.
  ASSERT_EQ(testing::run_jetchar({"frontier", "--model", "bert-tiny", "--seq-len", "64", "--budget", "256MiB",
                                  "--max-batch", "512", "--threads", "1", "--split-steps", "2", "--json"},
                                 out, err),
            kOk)
      << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  ASSERT_TRUE(json["largest_batch"].is_number()) << json.dump(2);
  ASSERT_TRUE(json["smallest_failing_batch"].is_number()) << "256 MiB held batch 512: " << json.dump(2);
  const auto largest = json["largest_batch"].get<std::int64_t>();
  const auto failing = json["smallest_failing_batch"].get<std::int64_t>();
  EXPECT_EQ(failing, largest + 1);
  EXPECT_EQ(json["budget_bytes"], 256ull << 20);
  // The verdicts the answer rests on: `largest` fitted, `largest + 1` ran out of memory, and every
  // probe that fitted stayed inside its limit.
  bool saw_largest = false, saw_failing = false;
  for (const auto& probe : json["probes"]) {
    const auto batch = probe["batch"].get<std::int64_t>();
    const auto status = probe["status"].get<std::string>();
    if (batch == largest) saw_largest = status == "fits";
    if (batch == failing) saw_failing = status == "out_of_memory";
    ASSERT_TRUE(probe["limit_bytes"].is_number()) << probe.dump();
    EXPECT_EQ(probe["limit_bytes"].get<std::uint64_t>(),
              probe["baseline_vm_bytes"].get<std::uint64_t>() + (256ull << 20));
    if (status == "fits") {
      EXPECT_LE(probe["peak_vm_bytes"].get<std::uint64_t>(), probe["limit_bytes"].get<std::uint64_t>()) << probe.dump();
      EXPECT_EQ(probe["timed_steps"], 1) << probe.dump();
    } else {
      EXPECT_EQ(status, "out_of_memory") << probe.dump();
      EXPECT_FALSE(probe["error"].get<std::string>().empty());
    }
  }
  EXPECT_TRUE(saw_largest) << json.dump(2);
  EXPECT_TRUE(saw_failing) << json.dump(2);
  // Every split of the largest batch, each timed over one step after the untimed first.
  std::int64_t splits = 0;
  for (std::int64_t micro = 1; micro <= largest; ++micro) splits += largest % micro == 0 ? 1 : 0;
  ASSERT_EQ(json["splits"].size(), static_cast<std::size_t>(splits)) << json.dump(2);
  for (const auto& split : json["splits"]) {
    EXPECT_EQ(split["micro_batch"].get<std::int64_t>() * split["accumulate"].get<std::int64_t>(), largest);
    // The largest batch whole is the run closest to the budget (docs/memory-frontier.md): run again,
    // the allocator's few MiB of noise can take it over, which its split then reports.
    if (split["accumulate"] == 1 && split["status"] == "out_of_memory") {
      EXPECT_GE(split["peak_vm_bytes"].get<double>(), 0.98 * split["limit_bytes"].get<double>()) << split.dump();
      continue;
    }
    EXPECT_EQ(split["status"], "fits") << split.dump();
    EXPECT_EQ(split["timed_steps"], 1) << split.dump();
    EXPECT_GT(split["step_ns"].get<double>(), 0.0) << split.dump();
  }
}

TEST_F(FrontierCommandIntegration, BadModelsAndMissingBudgetsAreRefusedBeforeAnyProbe) {
  const auto err = dir_.path() / "err";
  EXPECT_EQ(testing::run_jetchar({"frontier", "--model", "resnet18", "--budget", "1GiB"}, "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("resnet18 takes images"));
  EXPECT_EQ(testing::run_jetchar({"frontier", "--model", "bert-nano", "--budget", "1GiB"}, "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("unknown model 'bert-nano'"));
  EXPECT_EQ(testing::run_jetchar({"frontier", "--model", "bert-tiny"}, "/dev/null", err), kUsage);
  EXPECT_THAT(read_text(err), HasSubstr("--budget is required"));
  EXPECT_EQ(testing::run_jetchar({"frontier-probe", "{not json"}, "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("frontier-probe request is not JSON"));
}

}  // namespace
}  // namespace jetchar::cli
