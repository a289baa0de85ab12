// Phased pretraining (workload.phases), as BERT's and ELECTRA's pretraining runs: phase 1 at 128
// tokens per sequence, phase 2 at 512, each with its own batch, accumulation, optimizer steps and
// learning-rate schedule, the second training on the weights the first left. One run trains the
// phases in order on one model; each phase is trained as a run of its own spec would be (a new
// optimizer and schedule, epochs over the corpus until its steps are taken).
#pragma once

#include <cstdint>
#include <vector>

#include "experiments/training/training_runner.h"
#include "experiments/training_workload.h"
#include "proto/experiment_spec.pb.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments {

/// Throws std::invalid_argument naming the field, its value and what is valid when the phases of
/// `resolved` cannot run: a phase without sequence_length or steps, phases beside inference, a
/// data set other than a text corpus, adaptive stopping, a target F1 or stored power samples (each
/// phase's time is modelled on its own).
void check_phases(const proto::ExperimentSpec& resolved);

/// The spec each phase trains by: `resolved` with the phase's sequence length as the corpus's
/// max_length, its batch, accumulation, learning rate and warm-up (the workload's where the phase
/// leaves one out), no max_minibatches and no phases. `resolved` alone when it has no phases.
/// The epochs are the caller's to set once the phase's minibatches per epoch are known
/// (epochs_for_steps).
std::vector<proto::ExperimentSpec> phase_specs(const proto::ExperimentSpec& resolved);

/// Phase `phase` (from 0, of phase_specs(resolved) = `specs`) opened for shard `shard_index` of
/// `shard_count` (a data-parallel rank's) on the model `before` left (the phase before's; nullptr
/// for the first): trained for the phase's optimizer steps (max_steps, and the epochs that hold
/// them), keeping each step's loss. Without phases, `specs`'s one spec opened as it is.
TrainingWorkload open_phase_workload(const proto::ExperimentSpec& resolved,
                                     const std::vector<proto::ExperimentSpec>& specs, std::size_t phase,
                                     std::int64_t shard_index, std::int64_t shard_count,
                                     const TrainingWorkload* before);

/// The epochs of `batches_per_epoch` minibatches that hold `steps` optimizer steps of `accumulate`
/// minibatches each (the trainer also steps after an epoch's last minibatch).
std::int64_t epochs_for_steps(std::int64_t steps, std::int64_t accumulate, std::int64_t batches_per_epoch);

/// Appends phase `phase` (from 1)'s trainer result to the run's: its epochs numbered on from the
/// run's and marked with the phase, its minibatch records likewise, its status and error where the
/// run's is still OK, stopped_early, and the higher memory peaks.
void append_phase(TrainingResult& run, TrainingResult phase_result, std::int64_t phase);

/// Phase `phase`'s figures: its settings from `phase_workload` (phase_specs') and `trained` (its
/// trainer result), its samples, time, final loss and energy from its epochs in `result`, marked
/// with the phase (already on the board's time).
proto::PhaseResult phase_result(const proto::RunResult& result, const TrainingResult& trained,
                                const proto::WorkloadSpec& phase_workload, std::int64_t phase);

}  // namespace jetchar::experiments
