// Board kinds of a fleet (SweepSpec.kinds, proto/sweep_spec.proto): each kind's runs
// are the sweep planned with the kind's own axes, and its run ids carry the kind's name
// ("agx-orin.0003-r1"), so the runs of several kinds never share an id. A sweep without kinds is
// planned as it is.
#pragma once

#include <string>
#include <vector>

#include "proto/sweep_spec.pb.h"
#include "sweeps/plan.h"

namespace jetchar::sweeps {

/// Checks the sweep's kinds: each has a name of letters, digits, '-' and '_', no name is used
/// twice, and a constraint, when given, is a plain Slurm feature name. Throws
/// std::invalid_argument naming `source`, the kind and what is valid.
void check_board_kinds(const proto::SweepSpec& sweep, const std::string& source);

/// The kind named `name`; throws std::invalid_argument naming the kinds the sweep has.
const proto::BoardKind& find_board_kind(const proto::SweepSpec& sweep, const std::string& name,
                                        const std::string& source);

/// The sweep as kind `kind` runs it: an axis of the kind replaces the sweep's axis of the same
/// field, the kind's other axes are added after the sweep's; the kind's board, when set, is the
/// sweep's board; the kinds themselves are dropped.
proto::SweepSpec sweep_for_kind(const proto::SweepSpec& sweep, const proto::BoardKind& kind);

/// The runs of kind `kind` ("" for a sweep without kinds): plan_sweep of sweep_for_kind, run ids
/// prefixed "<kind>.". Throws std::invalid_argument when a sweep with kinds is planned without
/// one (naming them) or a sweep without kinds with one.
SweepPlan plan_board_kind(const proto::SweepSpec& sweep, const std::string& kind, const std::string& source);

/// The names of the sweep's kinds in spec order; {""} for a sweep without kinds (one plan).
std::vector<std::string> board_kind_names(const proto::SweepSpec& sweep);

/// The Slurm feature of a kind: its constraint, else its name.
std::string board_kind_feature(const proto::BoardKind& kind);

}  // namespace jetchar::sweeps
