#include "experiments/frontier/probe_protocol.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace jetchar::experiments {
namespace {

TEST(ProbeProtocolTest, RequestAndOutcomeRoundTripThroughJson) {
  ProbeRequest request;
  request.model = "bert-base";
  request.sequence_length = 384;
  request.micro_batch = 6;
  request.accumulate = 2;
  request.steps = 3;
  request.budget_bytes = 4ull << 30;
  request.threads = 2;
  request.seed = 7;
  const auto back = probe_request_from_json(nlohmann::json::parse(to_json(request).dump()));
  EXPECT_EQ(back.model, "bert-base");
  EXPECT_EQ(back.sequence_length, 384);
  EXPECT_EQ(back.micro_batch, 6);
  EXPECT_EQ(back.accumulate, 2);
  EXPECT_EQ(back.steps, 3);
  EXPECT_EQ(back.budget_bytes, 4ull << 30);
  EXPECT_EQ(back.threads, 2);
  EXPECT_EQ(back.seed, 7u);

  ProbeOutcome outcome;
  outcome.status = ProbeStatus::kOutOfMemory;
  outcome.error = "DefaultCPUAllocator: can't allocate memory";
  outcome.limit_bytes = 5ull << 30;
  outcome.peak_rss_bytes = 123456789;
  outcome.timed_steps = 2;
  outcome.timed_begin_ns = 10;
  outcome.timed_end_ns = 30;
  outcome.step_ns = 10.0;
  const auto parsed = probe_outcome_from_json(nlohmann::json::parse(to_json(outcome).dump()));
  EXPECT_EQ(parsed.status, ProbeStatus::kOutOfMemory);
  EXPECT_EQ(parsed.error, outcome.error);
  EXPECT_EQ(parsed.limit_bytes, outcome.limit_bytes);
  EXPECT_EQ(parsed.peak_rss_bytes, outcome.peak_rss_bytes);
  EXPECT_FALSE(parsed.peak_vm_bytes);
  EXPECT_EQ(parsed.timed_steps, 2);
  EXPECT_EQ(parsed.timed_end_ns, 30);
  EXPECT_EQ(parsed.step_ns, 10.0);
}

TEST(ProbeProtocolTest, ABadMessageIsAnErrorNamingTheField) {
  ProbeRequest valid;
  valid.model = "bert-tiny";
  const auto request = to_json(valid);
  auto expect_error = [](const nlohmann::json& json, const std::string& part) {
    try {
      probe_request_from_json(json);
      FAIL() << "accepted " << json.dump();
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    }
  };
  auto missing = request;
  missing.erase("micro_batch");
  expect_error(missing, "'micro_batch'");
  auto zero = request;
  zero["accumulate"] = 0;
  expect_error(zero, "accumulate 0");
  auto text = request;
  text["steps"] = "two";
  expect_error(text, "'steps'");
  auto no_budget = request;
  no_budget["budget_bytes"] = 0;
  expect_error(no_budget, "budget_bytes 0");
  expect_error(nlohmann::json::array(), "not a JSON object");
  EXPECT_THROW(probe_outcome_from_json({{"status", "maybe"}, {"timed_steps", 0}}), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
