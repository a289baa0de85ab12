#include "sweeps/slurm/accounting.h"

#include <gtest/gtest.h>

#include <string>

namespace jetchar::sweeps {
namespace {

// Lines in the form sacct(1) of Slurm 22.05 documents for `--parsable2 --noheader
// --format=JobID,JobName,State,NodeList`: '|' between fields and none at the end; array tasks as
// ARRAYJOB_TASK, still-pending tasks as one ARRAYJOB_[LIST%LIMIT] record with "None assigned";
// a cancelled job's state followed by "by <uid>"; steps as JOB.STEP.
constexpr const char* kAccountingFleet =
    "812_0|jetchar-fleet-agx-orin|COMPLETED|b1\n"
    "812_1|jetchar-fleet-agx-orin|NODE_FAIL|b2\n"
    "812_2|jetchar-fleet-agx-orin|CANCELLED by 0|b2\n"
    "812_3|jetchar-fleet-agx-orin|RUNNING|b1\n"
    "812_3.batch|batch|RUNNING|b1\n"
    "812_[4-7%2]|jetchar-fleet-agx-orin|PENDING|None assigned\n"
    "814_[0,2,5-6]|jetchar-fleet-orin-nano|PENDING|None assigned\n"
    "\n"
    "813|jetchar-fleet-merge|PENDING|None assigned\r\n";

TEST(SlurmAccounting, ReadsJobsArrayTasksAndPendingRanges) {
  const auto records = parse_sacct(kAccountingFleet);
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[0].job, "812");
  EXPECT_EQ(records[0].nodes, "b1");
  EXPECT_EQ(records[2].state, "CANCELLED");
  EXPECT_TRUE(records[4].step);
  EXPECT_EQ(records[5].tasks, 4u);
  EXPECT_EQ(records[5].nodes, "");
  EXPECT_EQ(records[6].tasks, 4u);
  EXPECT_EQ(records[7].job_id, "813");
  EXPECT_EQ(records[7].name, "jetchar-fleet-merge");

  const auto counts = sacct_states_by_node(records);
  EXPECT_EQ(counts.at("b1").at("COMPLETED"), 1u);
  EXPECT_EQ(counts.at("b1").at("RUNNING"), 1u) << "a step is not counted again";
  EXPECT_EQ(counts.at("b2").at("NODE_FAIL"), 1u);
  EXPECT_EQ(counts.at("b2").at("CANCELLED"), 1u);
  EXPECT_EQ(counts.at("(pending)").at("PENDING"), 9u);
  EXPECT_TRUE(parse_sacct("").empty());
}

std::string accounting_error_of(const std::string& text) {
  try {
    parse_sacct(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(SlurmAccounting, OutputNotInSacctsFormIsNamedByLine) {
  EXPECT_NE(accounting_error_of("812_0|a|COMPLETED|b1\n812_1|a|COMPLETED\n")
                .find("line 2 '812_1|a|COMPLETED': 3 fields, not 4"),
            std::string::npos)
      << accounting_error_of("812_0|a|COMPLETED|b1\n812_1|a|COMPLETED\n");
  EXPECT_NE(accounting_error_of("812_0|a|COMPLETED|b1|\n").find("5 fields"), std::string::npos)
      << "--parsable (with a final '|')";
  EXPECT_NE(accounting_error_of("JobID|JobName|State|NodeList\n").find("JobID 'JobID' is not"), std::string::npos)
      << "a header line";
  EXPECT_NE(accounting_error_of("812_x|a|COMPLETED|b1").find("JobID '812_x'"), std::string::npos);
  EXPECT_NE(accounting_error_of("812_[7-4]|a|PENDING|None assigned").find("JobID '812_[7-4]'"), std::string::npos);
  EXPECT_NE(accounting_error_of("812_[1-2]%|a|PENDING|None assigned").find("JobID"), std::string::npos);
  EXPECT_NE(accounting_error_of("812|a|completed|b1").find("State 'completed' is not a job state code"),
            std::string::npos);
  EXPECT_NE(accounting_error_of("812|a||b1").find("State ''"), std::string::npos);
  EXPECT_NE(accounting_error_of("Accounting storage is disabled\n").find("1 fields, not 4"), std::string::npos);
}

}  // namespace
}  // namespace jetchar::sweeps
