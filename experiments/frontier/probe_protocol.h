// The frontier's probe protocol: what the searching process asks of a probe (one short training run
// of a model at one micro-batch × accumulation under a memory budget) and what the probe answers.
// A probe runs in a child process (`jetchar frontier-probe REQUEST_JSON`, probe_child.h), so an
// out-of-memory end, however the allocator or a library reports it, ends that child only. The
// child prints its outcome as one JSON object on the last line of its stdout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace jetchar::experiments {

struct ProbeRequest {
  std::string model;
  std::string precision = "fp32";
  std::string device = "cpu";
  std::int64_t sequence_length = 128;
  std::int64_t micro_batch = 1;
  std::int64_t accumulate = 1;
  /// Optimizer steps. Two reach the steady peak (AdamW allocates its state in the first step, so
  /// the second holds weights, gradients, both moments and the activations at once).
  std::int64_t steps = 2;
  /// RLIMIT_AS budget above the warmed-up baseline (address_space_budget.h); none on a CUDA device,
  /// whose own memory bounds the run.
  std::optional<std::uint64_t> budget_bytes;
  std::optional<int> threads;
  std::uint64_t seed = 0;
};

nlohmann::json to_json(const ProbeRequest& request);
/// Throws std::invalid_argument naming the field and the value for a missing or invalid field.
ProbeRequest probe_request_from_json(const nlohmann::json& json);

enum class ProbeStatus { kFits, kOutOfMemory, kFailed };
std::string_view probe_status_name(ProbeStatus status);

struct ProbeOutcome {
  ProbeStatus status = ProbeStatus::kFailed;
  /// Why it did not fit or failed (the allocator's message, a signal, the child's stderr tail).
  std::string error;
  /// The address-space limit the probe ran under (CPU budget only), bytes.
  std::optional<std::uint64_t> baseline_vm_bytes;
  std::optional<std::uint64_t> limit_bytes;
  /// VmPeak and VmHWM of the probe process at its end, bytes.
  std::optional<std::uint64_t> peak_vm_bytes;
  std::optional<std::uint64_t> peak_rss_bytes;
  /// CUDA caching allocator's peak reserved bytes (CUDA devices only).
  std::optional<std::uint64_t> cuda_peak_reserved_bytes;
  /// Optimizer steps timed (every step after the first, which allocates) and their span on
  /// CLOCK_MONOTONIC (the clock of the power trace, the same in every process of the machine).
  std::int64_t timed_steps = 0;
  std::optional<std::int64_t> timed_begin_ns;
  std::optional<std::int64_t> timed_end_ns;
  /// Mean time of a timed optimizer step (fetch + compute of its micro-batches), ns.
  std::optional<double> step_ns;
  double wall_s = 0;  ///< the child's whole life, as the searching process saw it
};

nlohmann::json to_json(const ProbeOutcome& outcome);
/// Throws std::invalid_argument naming the field for an outcome line that is not the protocol's.
ProbeOutcome probe_outcome_from_json(const nlohmann::json& json);

}  // namespace jetchar::experiments
