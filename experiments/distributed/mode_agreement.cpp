#include "experiments/distributed/mode_agreement.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <stdexcept>

namespace jetchar::experiments::distributed {
namespace {

// A store value is never empty: "+" for a board in its mode, "-" and the reason otherwise.
constexpr char kInMode = '+';
constexpr char kNotInMode = '-';

std::string read_waiting(RankGroup& group, const std::string& key, int node, const char* what) {
  try {
    return group.read(key);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("node {} did not {} within {} s: {}", node, what,
                                         std::chrono::duration<double>(group.rendezvous().timeout).count(),
                                         error.what()));
  }
}

std::string read_key(int node_rank) { return fmt::format("jetchar/mode-read/{}", node_rank); }

}  // namespace

std::string mode_key(int node_rank) { return fmt::format("jetchar/mode/{}", node_rank); }

std::string world_mode_verdict(const std::vector<std::string>& verdicts) {
  std::vector<std::string> reasons;
  for (const auto& verdict : verdicts) {
    if (!verdict.empty()) reasons.push_back(verdict);
  }
  return fmt::format("{}", fmt::join(reasons, "; "));
}

std::string agree_on_modes(RankGroup& group, int nnodes, const std::string& own) {
  const int node = group.place().node_rank;
  group.publish(mode_key(node), own.empty() ? std::string(1, kInMode) : kNotInMode + own);
  std::vector<std::string> verdicts;
  for (int other = 0; other < nnodes; ++other) {
    const auto value = read_waiting(group, mode_key(other), other, "say whether its board is in its power mode");
    if (value.empty() || (value.front() != kInMode && value.front() != kNotInMode)) {
      throw std::runtime_error(
          fmt::format("node {}'s verdict on its power mode in the rendezvous's store is '{}', "
                      "which no jetchar writes (is another program using port {}?)",
                      other, value, group.port()));
    }
    verdicts.push_back(value.substr(1));
  }
  if (node != 0) {
    group.publish(read_key(node), "1");
  } else {
    for (int other = 1; other < nnodes; ++other) read_waiting(group, read_key(other), other, "read every verdict");
  }
  return world_mode_verdict(verdicts);
}

}  // namespace jetchar::experiments::distributed
