#include "analysis/task_scores.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>

#include <cmath>

#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

// Three seeds of one setting (two epochs each; the last one counts), two of another, one failed run.
constexpr const char* kScoredRuns =
    "workload,mode,batch,run_id,epoch,epoch_time_s,eval_squad_f1_ratio,eval_exact_match_ratio,status\n"
    "bert/squad,MAXN,16,s1,0,10,0.50,0.40,OK\n"
    "bert/squad,MAXN,16,s1,1,10,0.80,0.70,OK\n"
    "bert/squad,MAXN,16,s2,0,10,0.40,0.30,OK\n"
    "bert/squad,MAXN,16,s2,1,10,0.70,0.60,OK\n"
    "bert/squad,MAXN,16,s3,0,10,0.60,,OK\n"
    "bert/squad,MAXN,16,s3,1,10,0.90,,OK\n"
    "bert/squad,MAXN,32,t1,1,10,0.75,,OK\n"
    "bert/squad,MAXN,32,t2,1,10,0.77,,FAILED\n";

TEST(TaskScores, MeanAndStudentIntervalOverEachConfigurationsRuns) {
  const auto rows = task_scores(parse_results_csv(kScoredRuns, "r.csv"));
  ASSERT_EQ(rows.size(), 3u);  // batch 16: exact match, F1; batch 32: F1
  const TaskScoreRow& f1 = rows[1];
  EXPECT_EQ(f1.key.axes.at("batch"), "16");
  EXPECT_EQ(f1.metric, "eval_squad_f1_ratio");
  EXPECT_EQ(f1.runs, 3u);
  EXPECT_DOUBLE_EQ(f1.mean, 0.8);
  ASSERT_TRUE(f1.stddev);
  EXPECT_NEAR(*f1.stddev, 0.1, 1e-12);
  ASSERT_TRUE(f1.ci);
  const double half = boost::math::quantile(boost::math::students_t(2), 0.975) * 0.1 / std::sqrt(3.0);
  EXPECT_NEAR(f1.ci->low, 0.8 - half, 1e-12);
  EXPECT_NEAR(f1.ci->high, 0.8 + half, 1e-12);

  const TaskScoreRow& em = rows[0];
  EXPECT_EQ(em.metric, "eval_exact_match_ratio");
  EXPECT_EQ(em.runs, 2u);  // s3 was not scored on exact match
  EXPECT_DOUBLE_EQ(em.mean, 0.65);

  const TaskScoreRow& one = rows[2];
  EXPECT_EQ(one.runs, 1u);  // the failed run is left out
  EXPECT_FALSE(one.stddev);
  EXPECT_FALSE(one.ci);
}

}  // namespace
}  // namespace jetchar::analysis
