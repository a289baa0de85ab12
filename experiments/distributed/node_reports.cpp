#include "experiments/distributed/node_reports.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <stdexcept>
#include <system_error>
#include <thread>

#include <c10/util/Exception.h>

namespace jetchar::experiments::distributed {

std::string report_key(int node_rank) { return fmt::format("jetchar/report/{}", node_rank); }

void publish_node_report(RankGroup& group, const proto::NodeReport& report) {
  const auto key = report_key(static_cast<int>(report.node_rank()));
  group.publish(key, report.SerializeAsString());
  // A read is a round trip: once it answers, node 0's store holds the report, whatever this
  // process does next.
  group.read(key);
}

namespace {

std::string beat_key(int node_rank) { return fmt::format("jetchar/beat/{}", node_rank); }

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

NodeBeat::NodeBeat(RankGroup& group, int node_rank, std::chrono::milliseconds every) {
  thread_ = std::thread([this, &group, node_rank, every] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      try {
        group.add(beat_key(node_rank), 1);
      } catch (const std::exception&) {
        // Node 0's store is gone: node 0 waits for no one, and this node's report says so.
      }
      stop_.wait_for(lock, every, [this] { return stopping_; });
    }
  });
}

NodeBeat::~NodeBeat() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

std::vector<proto::NodeReport> read_node_reports(RankGroup& group, int nnodes, std::chrono::milliseconds silence) {
  using Clock = std::chrono::steady_clock;
  std::vector<proto::NodeReport> reports;
  for (int node = 1; node < nnodes; ++node) {
    std::string bytes;
    try {
      const auto waited_from = Clock::now();
      auto beat = group.add(beat_key(node), 0);
      auto heard = waited_from;
      while (!group.holds(report_key(node))) {
        const auto now = Clock::now();
        if (const auto next = group.add(beat_key(node), 0); next != beat) {
          beat = next;
          heard = now;
        } else if (now - heard >= silence) {
          throw std::runtime_error(fmt::format(
              "node {} gave no sign of life for {:.0f} s before it reported its board's energy and mode after "
              "training: it is gone (killed, or its machine down)",
              node, seconds(now - heard)));
        }
        if (now - waited_from >= group.rendezvous().timeout) {
          throw std::runtime_error(
              fmt::format("node {} did not report its board's energy and mode after training "
                          "within {} s",
                          node, seconds(group.rendezvous().timeout)));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      bytes = group.read(report_key(node));
    } catch (const c10::Error& error) {
      throw std::runtime_error(fmt::format("node {}'s report could not be read from the rendezvous's store: {}", node,
                                           error.what_without_backtrace()));
    } catch (const std::system_error& error) {
      throw std::runtime_error(
          fmt::format("node {}'s report could not be read from the rendezvous's store: {}", node, error.what()));
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
