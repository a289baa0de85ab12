// Time and energy to target (issue 19; the BERT write-ups' "time to F1 X"): a run's epochs, each
// with its dev F1 (entity F1 for token classification, SQuAD F1 for question answering), its E2E
// time and its energy window, give the first epoch at or above the target and what reaching it
// cost. Counted: the E2E intervals and energy windows of epochs 0..that epoch; the untimed
// evaluation between epochs is left out of time_s and energy_j and kept in wall_s.
#pragma once

#include <optional>

#include <google/protobuf/repeated_ptr_field.h>

#include "proto/run_result.pb.h"

namespace jetchar::experiments {

/// The epoch's dev F1: entity F1 when it has one, else SQuAD F1, else nullopt.
std::optional<double> dev_f1(const proto::EpochResult& epoch);

/// Throws std::invalid_argument naming the value unless 0 < target_f1 <= 1.
void check_target_f1(double target_f1);

/// The outcome for `target_f1` (checked as check_target_f1) over `epochs` in order.
proto::TargetOutcome target_outcome(const google::protobuf::RepeatedPtrField<proto::EpochResult>& epochs,
                                    double target_f1);

}  // namespace jetchar::experiments
