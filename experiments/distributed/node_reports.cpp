#include "experiments/distributed/node_reports.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <stdexcept>

namespace jetchar::experiments::distributed {

std::string report_key(int node_rank) { return fmt::format("jetchar/report/{}", node_rank); }

void publish_node_report(RankGroup& group, const proto::NodeReport& report) {
  const auto key = report_key(static_cast<int>(report.node_rank()));
  group.publish(key, report.SerializeAsString());
  // A read is a round trip: once it answers, node 0's store holds the report, whatever this
  // process does next.
  group.read(key);
}

std::vector<proto::NodeReport> read_node_reports(RankGroup& group, int nnodes) {
  std::vector<proto::NodeReport> reports;
  for (int node = 1; node < nnodes; ++node) {
    std::string bytes;
    try {
      bytes = group.read(report_key(node));
    } catch (const std::exception& error) {
      throw std::runtime_error(
          fmt::format("node {} did not report its board's energy and mode after training within {} s: {}", node,
                      std::chrono::duration<double>(group.rendezvous().timeout).count(), error.what()));
    }
    proto::NodeReport& report = reports.emplace_back();
    if (!report.ParseFromString(bytes) || static_cast<int>(report.node_rank()) != node) {
      throw std::runtime_error(fmt::format(
          "node {}'s report in the rendezvous's store is not one jetchar wrote (is another program using port {}?)",
          node, group.port()));
    }
  }
  return reports;
}

void judge_node_reports(const std::vector<proto::NodeReport>& nodes, proto::RunResult& record) {
  std::vector<std::string> changed, failed;
  for (const auto& node : nodes) {
    if (!node.mode_changes().empty()) {
      changed.push_back(fmt::format("on node {}: {}", node.node_rank(), fmt::join(node.mode_changes(), "; ")));
    } else if (node.status() != proto::OK && node.status() != proto::RUN_STATUS_UNSPECIFIED) {
      failed.push_back(fmt::format("node {} recorded {}: {}", node.node_rank(), proto::RunStatus_Name(node.status()),
                                   node.reason()));
    }
  }
  if (!changed.empty()) {
    record.set_status(proto::INVALID);
    record.set_reason(fmt::format("the power mode changed during the run {}", fmt::join(changed, "; ")));
  } else if (!failed.empty() && record.status() == proto::OK) {
    record.set_status(proto::FAILED);
    record.set_reason(
        fmt::format("{}{}", fmt::join(failed, "; "), record.reason().empty() ? "" : "; " + record.reason()));
  }
}

}  // namespace jetchar::experiments::distributed
