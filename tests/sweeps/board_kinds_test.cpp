#include "sweeps/board_kinds.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

#include "sweeps/spec_io.h"

namespace jetchar::sweeps {
namespace {

// Two kinds: the AGX Orin runs four core counts, the Orin Nano two of its own, both with the
// sweep's batch sizes; the Nano's kind adds a worker axis of its own.
constexpr const char* kKindsFleet = R"(
name: "fleet"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 epochs: 1 device: "cpu" } }
axes { field: "device.cpu_cores" values: ["2"] }
axes { field: "workload.batch_size" values: ["4", "8"] }
kinds { name: "agx-orin" board: "sim:agx-orin-r36"
        axes { field: "device.cpu_cores" values: ["2", "4", "8", "12"] } }
kinds { name: "orin-nano" constraint: "nano8g" nodes: "b3,b4"
        axes { field: "device.cpu_cores" values: ["3", "6"] }
        axes { field: "loader.workers" values: ["1", "2"] } }
)";

TEST(BoardKinds, EachKindIsPlannedFromItsOwnAxesWithItsNameInTheRunIds) {
  const auto sweep = parse_sweep_spec(kKindsFleet, "fleet.textproto");
  const auto agx = plan_board_kind(sweep, "agx-orin", "fleet.textproto");
  ASSERT_EQ(agx.runs.size(), 8u);  // 4 core counts x 2 batch sizes
  EXPECT_EQ(agx.runs[0].run_id, "agx-orin.0000-r0");
  std::set<std::uint32_t> cores;
  for (const auto& run : agx.runs) cores.insert(run.spec.device().cpu_cores());
  EXPECT_EQ(cores, (std::set<std::uint32_t>{2, 4, 8, 12}));

  const auto nano = plan_board_kind(sweep, "orin-nano", "fleet.textproto");
  ASSERT_EQ(nano.runs.size(), 8u);  // 2 core counts x 2 batch sizes x 2 worker counts
  std::set<std::uint32_t> workers;
  for (const auto& run : nano.runs) {
    EXPECT_TRUE(run.run_id.starts_with("orin-nano.")) << run.run_id;
    EXPECT_TRUE(run.spec.device().cpu_cores() == 3 || run.spec.device().cpu_cores() == 6) << run.run_id;
    workers.insert(run.spec.loader().workers());
  }
  EXPECT_EQ(workers, (std::set<std::uint32_t>{1, 2}));
  EXPECT_EQ(board_kind_feature(sweep.kinds(1)), "nano8g");
  EXPECT_EQ(board_kind_feature(sweep.kinds(0)), "agx-orin");
  EXPECT_EQ(sweep_for_kind(sweep, sweep.kinds(0)).board(), "sim:agx-orin-r36");
  EXPECT_EQ(board_kind_names(sweep), (std::vector<std::string>{"agx-orin", "orin-nano"}));
}

TEST(BoardKinds, ASweepWithoutKindsIsPlannedAsItIs) {
  const auto sweep = parse_sweep_spec(R"(
name: "one"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 epochs: 1 device: "cpu" } }
axes { field: "workload.batch_size" values: ["4", "8"] })",
                                      "one.textproto");
  const auto plan = plan_board_kind(sweep, "", "one.textproto");
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0].run_id, "0000-r0");
  EXPECT_EQ(board_kind_names(sweep), std::vector<std::string>{""});
  try {
    plan_board_kind(sweep, "agx-orin", "one.textproto");
    ADD_FAILURE() << "a kind was planned from a spec without kinds";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("names no board kinds"), std::string::npos) << e.what();
  }
}

std::string kinds_error_of(const std::string& text, const std::string& kind) {
  try {
    plan_board_kind(parse_sweep_spec(text, "k.textproto"), kind, "k.textproto");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(BoardKinds, BadKindsAndMissingChoicesAreNamed) {
  const std::string base =
      R"(name: "k" base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 4 epochs: 1 device: "cpu" } } )";
  EXPECT_NE(kinds_error_of(kKindsFleet, "").find("names board kinds (agx-orin, orin-nano)"), std::string::npos)
      << kinds_error_of(kKindsFleet, "");
  EXPECT_NE(kinds_error_of(kKindsFleet, "xavier").find("no such board kind; its kinds: agx-orin, orin-nano"),
            std::string::npos);
  EXPECT_NE(kinds_error_of(base + R"(kinds { name: "a b" })", "a b").find("name 'a b' is not valid"),
            std::string::npos);
  EXPECT_NE(kinds_error_of(base + R"(kinds { name: "" })", "").find("kinds[0]: name '' is not valid"),
            std::string::npos);
  EXPECT_NE(kinds_error_of(base + R"(kinds { name: "a" } kinds { name: "a" })", "a").find("kind 'a' is named twice"),
            std::string::npos);
  EXPECT_NE(kinds_error_of(base + R"(kinds { name: "a" constraint: "x&y" })", "a")
                .find("constraint 'x&y' is not one node feature"),
            std::string::npos);
}

}  // namespace
}  // namespace jetchar::sweeps
