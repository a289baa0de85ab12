// A run's value of every setting that tells runs apart (results/schema/setting_columns.h), as the
// store's run_settings table, the export and the analysis key hold it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/run_result.pb.h"

namespace jetchar::results {

/// (column, value) for each of schema::kSettingColumns, in its order, from the resolved spec (the
/// requested one for a run that resolved nothing). Enums by name, numbers in their shortest exact
/// form, booleans "true"/"false"; "" for what the spec leaves unset (an optional field, an enum's
/// UNSPECIFIED, an empty string), which the resolved spec fills where the run knows the
/// default. workload.pretrained is the checkpoint's digest
/// (context.pretrained_sha256; the path when none was recorded), workload.dataset its options
/// after '?' ("max_length=384&stride=128"), workload.phases each phase's phase_text joined by "; ".
std::vector<std::pair<std::string_view, std::string>> setting_values(const proto::RunResult& result);

/// A pretraining phase as `train --phase` takes it: "seq=128,steps=900" then batch, accumulate,
/// lr and warmup where the phase sets them, numbers exactly (sweeps/phase_option.h reads it).
std::string phase_text(const proto::PhaseSpec& phase);

}  // namespace jetchar::results
