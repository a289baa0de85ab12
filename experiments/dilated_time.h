// A simulated board that this host cannot keep up with runs in slow motion (PacedTime::dilation,
// jetson/simulated/modelled_time_pacer.h): every minibatch or query took k times its modelled time
// while the rails held the modelled board's power. Dividing every time and energy figure of the
// run by k, and multiplying every rate by k, gives the modelled board's figures; powers stay as
// they are. The run's duration_s stays the host's (how long the run took here), and so does the
// idle baseline, whose power a dilated run does not change.
#pragma once

#include <vector>

#include "experiments/inference/inference_runner.h"
#include "experiments/inference/query_energy.h"
#include "experiments/inference/server_scenario.h"
#include "experiments/training/training_runner.h"
#include "proto/run_result.pb.h"
#include "results/store.h"

namespace jetchar::experiments {

/// Divides the epochs' and minibatches' times and energies, the latency summary's latencies and
/// energies per query/sample and the stored power samples' times by `dilation`, multiplies the
/// throughput by it and records it in modelled_time.dilation. Nothing when
/// `dilation` is 1. Call it before anything is derived from those figures (the target outcome).
void undilate(double dilation, proto::RunResult& result, std::vector<results::StoredPowerSample>& samples);

/// Multiplies an epoch's energies (total, incremental, per sample, per rail, per external meter) by
/// `factor`; its powers stay. A paced epoch whose host overran the board's time leaves that delay out of
/// its E2E, and its energy window's share of it with this (factor = E2E / (E2E + delay)).
void scale_epoch_energy(proto::EpochResult& epoch, double factor);

/// The runners' own results, as `train` and `infer` print them, the same way: the epochs' and
/// minibatches' times; every query's latency, their summary, the timed span and the throughput.
/// Clock readings (a minibatch's start, the timed span's ends) stay the host's.
TrainingResult undilated(TrainingResult result, double dilation);
EpochResult undilated(EpochResult epoch, double dilation);
InferenceResult undilated(InferenceResult result, double dilation);
/// A dilated run's energy per query: energies divided by `dilation`.
QueryEnergy undilated(QueryEnergy energy, double dilation);
/// A server scenario's search (server_scenario.h): the bound, every trial's p99 and the best
/// trial's latencies and span divided by `dilation`; the capacity and every rate multiplied by it.
/// InferenceResult's undilated() applies it to its `server`, undilate() to RunResult.server.
ServerSearch undilated(ServerSearch search, double dilation);
/// One of its trials: the rate multiplied, the p99 divided.
ServerTrial undilated(ServerTrial trial, double dilation);

}  // namespace jetchar::experiments
