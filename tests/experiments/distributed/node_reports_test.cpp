// Node 0 waits for the other nodes' reports after a data-parallel training across machines: on a
// real TCPStore over loopback (two RankGroups in one process, as node 0's and node 1's first ranks),
// a node that beats is waited for past the silence, one whose beat stopped (killed after training)
// or never began is named within the silence, long before the rendezvous's timeout.
#include "experiments/distributed/node_reports.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace jetchar::experiments::distributed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

struct TwoNodes {
  TwoNodes() {
    Rendezvous rendezvous;
    rendezvous.timeout = 60s;
    node0 = std::make_unique<RankGroup>(rendezvous, RankPlace{0, 2, 0, 0});
    rendezvous.master_port = node0->port();
    node1 = std::make_unique<RankGroup>(rendezvous, RankPlace{1, 2, 0, 1});
  }
  std::unique_ptr<RankGroup> node0, node1;
};

proto::NodeReport report_of_node_1() {
  proto::NodeReport report;
  report.set_node_rank(1);
  report.set_status(proto::OK);
  return report;
}

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(NodeReportsTest, ANodeThatBeatsIsWaitedForPastTheSilence) {
  TwoNodes world;
  std::thread node1([&world] {
    NodeBeat beat(*world.node1, 1, 50ms);
    std::this_thread::sleep_for(2500ms);  // recording, well past the silence
    publish_node_report(*world.node1, report_of_node_1());
  });
  const auto reports = read_node_reports(*world.node0, 2, 1000ms);
  node1.join();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].node_rank(), 1u);
  EXPECT_EQ(reports[0].status(), proto::OK);
}

TEST(NodeReportsTest, ANodeWhoseBeatStoppedIsNamedLongBeforeTheTimeout) {
  TwoNodes world;
  std::optional<NodeBeat> beat;
  beat.emplace(*world.node1, 1, 50ms);
  std::this_thread::sleep_for(200ms);
  beat.reset();  // the node is killed after training, before its report
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of([&] { read_node_reports(*world.node0, 2, 300ms); }),
              HasSubstr("s before it reported its board's energy and mode after training: it is gone (killed, or its "
                        "machine down)"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "the rendezvous's timeout is 60 s";
}

TEST(NodeReportsTest, ANodeThatNeverBeatIsNamedToo) {
  TwoNodes world;
  EXPECT_THAT(error_of([&] { read_node_reports(*world.node0, 2, 200ms); }), HasSubstr("node 1 gave no sign of life"));
}

TEST(NodeReportsTest, AReportThatIsNotJetcharsIsNamed) {
  TwoNodes world;
  world.node1->publish(report_key(1), "not a report");
  EXPECT_THAT(error_of([&] { read_node_reports(*world.node0, 2, 200ms); }),
              HasSubstr("node 1's report in the rendezvous's store is not one jetchar wrote"));
}

}  // namespace
}  // namespace jetchar::experiments::distributed
