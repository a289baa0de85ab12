#include "jetson/control/clock_settle.h"

#include <fmt/format.h>

#include <thread>

#include "sysfs/attribute.h"

namespace jetchar::jetson {

bool SettleResult::pinned_settled() const {
  for (const auto& o : outcomes) {
    if (o.pinned && !o.settled) return false;
  }
  return true;
}

std::vector<std::string> SettleResult::problems() const {
  std::vector<std::string> out;
  for (const auto& o : outcomes) {
    if (o.settled) continue;
    out.push_back(fmt::format("{} ({}) reads {} after {} ms", o.what, o.path,
                              o.last_value ? std::to_string(*o.last_value) : "nothing", waited.count()));
  }
  return out;
}

SettleResult settle_clocks(const sysfs::Root& root, const std::vector<SettleTarget>& targets,
                           std::chrono::milliseconds timeout, std::chrono::milliseconds poll) {
  SettleResult result;
  for (const auto& t : targets) result.outcomes.push_back({t.what, t.path, std::nullopt, false, t.pinned});
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < targets.size(); ++i) {
      auto& outcome = result.outcomes[i];
      if (outcome.settled) continue;
      outcome.last_value = sysfs::try_read_int(root, targets[i].path);
      outcome.settled =
          outcome.last_value && *outcome.last_value >= targets[i].min && *outcome.last_value <= targets[i].max;
      all = all && outcome.settled;
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    result.waited = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed);
    if (all || elapsed >= timeout) break;
    std::this_thread::sleep_for(poll);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!result.outcomes[i].settled && result.outcomes[i].last_value) {
      result.outcomes[i].what += fmt::format(" (expected {}..{})", targets[i].min, targets[i].max);
    }
  }
  return result;
}

}  // namespace jetchar::jetson
