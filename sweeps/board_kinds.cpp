#include "sweeps/board_kinds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace jetchar::sweeps {
namespace {

bool plain_name(const std::string& name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
}

std::string kind_list(const proto::SweepSpec& sweep) {
  std::string names;
  for (const auto& kind : sweep.kinds()) names += (names.empty() ? "" : ", ") + kind.name();
  return names;
}

}  // namespace

void check_board_kinds(const proto::SweepSpec& sweep, const std::string& source) {
  std::set<std::string> seen;
  for (int i = 0; i < sweep.kinds_size(); ++i) {
    const auto& kind = sweep.kinds(i);
    if (!plain_name(kind.name())) {
      throw std::invalid_argument(fmt::format(
          "{}: kinds[{}]: name '{}' is not valid; a kind's name is letters, digits, '-' and '_' (it begins the kind's "
          "run ids: \"agx-orin.0000-r0\")",
          source, i, kind.name()));
    }
    if (!seen.insert(kind.name()).second) {
      throw std::invalid_argument(fmt::format("{}: kinds[{}]: kind '{}' is named twice", source, i, kind.name()));
    }
    // Slurm's constraint syntax reads '&', '|', ',', '*', '[' and spaces as structure.
    const std::string& constraint = kind.constraint();
    if (!constraint.empty() && !std::all_of(constraint.begin(), constraint.end(), [](unsigned char c) {
          return std::isalnum(c) || c == '-' || c == '_' || c == '.';
        })) {
      throw std::invalid_argument(fmt::format(
          "{}: kind '{}': constraint '{}' is not one node feature (letters, digits, '-', '_', '.'; the feature its "
          "nodes list in slurm.conf Features=)",
          source, kind.name(), constraint));
    }
  }
}

const proto::BoardKind& find_board_kind(const proto::SweepSpec& sweep, const std::string& name,
                                        const std::string& source) {
  for (const auto& kind : sweep.kinds()) {
    if (kind.name() == name) return kind;
  }
  if (sweep.kinds().empty()) {
    throw std::invalid_argument(
        fmt::format("--kind {}: {} names no board kinds (a spec's `kinds {{ name: ... }}`)", name, source));
  }
  throw std::invalid_argument(
      fmt::format("--kind {}: {} has no such board kind; its kinds: {}", name, source, kind_list(sweep)));
}

proto::SweepSpec sweep_for_kind(const proto::SweepSpec& sweep, const proto::BoardKind& kind) {
  proto::SweepSpec planned = sweep;
  planned.clear_kinds();
  if (!kind.board().empty()) planned.set_board(kind.board());
  for (const auto& axis : kind.axes()) {
    auto* axes = planned.mutable_axes();
    const auto same =
        std::find_if(axes->begin(), axes->end(), [&](const proto::Axis& a) { return a.field() == axis.field(); });
    if (same != axes->end()) {
      *same = axis;
    } else {
      *planned.add_axes() = axis;
    }
  }
  return planned;
}

SweepPlan plan_board_kind(const proto::SweepSpec& sweep, const std::string& kind, const std::string& source) {
  check_board_kinds(sweep, source);
  if (kind.empty()) {
    if (!sweep.kinds().empty()) {
      throw std::invalid_argument(fmt::format(
          "{} names board kinds ({}): each kind has its own runs, so name one with --kind NAME, or submit them all to "
          "a fleet with `jetchar sweep submit {} --slurm`",
          source, kind_list(sweep), source));
    }
    return plan_sweep(sweep, source);
  }
  const proto::BoardKind& found = find_board_kind(sweep, kind, source);
  SweepPlan plan = plan_sweep(sweep_for_kind(sweep, found), fmt::format("{} (kind {})", source, kind));
  for (auto& run : plan.runs) run.run_id = kind + "." + run.run_id;
  return plan;
}

std::vector<std::string> board_kind_names(const proto::SweepSpec& sweep) {
  if (sweep.kinds().empty()) return {""};
  std::vector<std::string> names;
  for (const auto& kind : sweep.kinds()) names.push_back(kind.name());
  return names;
}

std::string board_kind_feature(const proto::BoardKind& kind) {
  return kind.constraint().empty() ? kind.name() : kind.constraint();
}

}  // namespace jetchar::sweeps
