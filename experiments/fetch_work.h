// What fetching a training run's samples asks of a board, counted from the data set and the
// loader's settings: the figures a board's time model (jetson/simulated/simulated_time_model.h)
// turns into a minibatch's fetch stall, as model_work.h's count the model's compute.
#pragma once

#include <cstdint>

#include "jetson/discovery/board_hooks.h"
#include "loaders/dataset.h"

namespace jetchar::experiments {

/// The fetch work of one sample of a data set described by `info` holding `samples` samples,
/// fetched by `workers` loader workers: the sample's input values and bytes as the model takes
/// them (a token task's ids, mask and segment ids), the stored bytes read for it (the files' size
/// over the samples), and whether it is a compressed image to decode (image folders, GLD-23k).
jetson::FetchWork count_fetch_work(const loaders::DatasetInfo& info, std::int64_t samples, int workers);

}  // namespace jetchar::experiments
