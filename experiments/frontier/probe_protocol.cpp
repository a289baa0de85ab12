#include "experiments/frontier/probe_protocol.h"

#include <fmt/format.h>

#include <stdexcept>

namespace jetchar::experiments {

namespace {

template <typename T>
T required(const nlohmann::json& json, const char* field) {
  if (!json.is_object()) throw std::invalid_argument(fmt::format("probe message {} is not a JSON object", json.dump()));
  const auto it = json.find(field);
  if (it == json.end()) throw std::invalid_argument(fmt::format("probe message lacks the field '{}'", field));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("probe message field '{}' has the wrong type: {}", field, it->dump()));
  }
}

template <typename T>
std::optional<T> optional_field(const nlohmann::json& json, const char* field) {
  const auto it = json.find(field);
  if (it == json.end() || it->is_null()) return std::nullopt;
  return required<T>(json, field);
}

template <typename T>
void put(nlohmann::json& json, const char* field, const std::optional<T>& value) {
  if (value) json[field] = *value;
}

std::int64_t at_least_one(const nlohmann::json& json, const char* field) {
  const auto value = required<std::int64_t>(json, field);
  if (value < 1) throw std::invalid_argument(fmt::format("probe request {} {} must be at least 1", field, value));
  return value;
}

}  // namespace

nlohmann::json to_json(const ProbeRequest& request) {
  nlohmann::json json{{"model", request.model},
                      {"precision", request.precision},
                      {"device", request.device},
                      {"sequence_length", request.sequence_length},
                      {"micro_batch", request.micro_batch},
                      {"accumulate", request.accumulate},
                      {"steps", request.steps},
                      {"seed", request.seed}};
  put(json, "budget_bytes", request.budget_bytes);
  put(json, "threads", request.threads);
  return json;
}

ProbeRequest probe_request_from_json(const nlohmann::json& json) {
  ProbeRequest request;
  request.model = required<std::string>(json, "model");
  request.precision = required<std::string>(json, "precision");
  request.device = required<std::string>(json, "device");
  request.sequence_length = at_least_one(json, "sequence_length");
  request.micro_batch = at_least_one(json, "micro_batch");
  request.accumulate = at_least_one(json, "accumulate");
  request.steps = at_least_one(json, "steps");
  request.seed = required<std::uint64_t>(json, "seed");
  request.budget_bytes = optional_field<std::uint64_t>(json, "budget_bytes");
  if (request.budget_bytes && *request.budget_bytes == 0) {
    throw std::invalid_argument("probe request budget_bytes 0 must be above zero");
  }
  request.threads = optional_field<int>(json, "threads");
  if (request.threads && *request.threads < 1) {
    throw std::invalid_argument(fmt::format("probe request threads {} must be at least 1", *request.threads));
  }
  return request;
}

std::string_view probe_status_name(ProbeStatus status) {
  switch (status) {
    case ProbeStatus::kFits: return "fits";
    case ProbeStatus::kOutOfMemory: return "out_of_memory";
    case ProbeStatus::kFailed: return "failed";
  }
  return "failed";
}

nlohmann::json to_json(const ProbeOutcome& outcome) {
  nlohmann::json json{
      {"status", probe_status_name(outcome.status)}, {"timed_steps", outcome.timed_steps}, {"wall_s", outcome.wall_s}};
  if (!outcome.error.empty()) json["error"] = outcome.error;
  put(json, "baseline_vm_bytes", outcome.baseline_vm_bytes);
  put(json, "limit_bytes", outcome.limit_bytes);
  put(json, "peak_vm_bytes", outcome.peak_vm_bytes);
  put(json, "peak_rss_bytes", outcome.peak_rss_bytes);
  put(json, "cuda_peak_reserved_bytes", outcome.cuda_peak_reserved_bytes);
  put(json, "timed_begin_ns", outcome.timed_begin_ns);
  put(json, "timed_end_ns", outcome.timed_end_ns);
  put(json, "step_ns", outcome.step_ns);
  return json;
}

ProbeOutcome probe_outcome_from_json(const nlohmann::json& json) {
  ProbeOutcome outcome;
  const auto status = required<std::string>(json, "status");
  if (status == "fits") {
    outcome.status = ProbeStatus::kFits;
  } else if (status == "out_of_memory") {
    outcome.status = ProbeStatus::kOutOfMemory;
  } else if (status == "failed") {
    outcome.status = ProbeStatus::kFailed;
  } else {
    throw std::invalid_argument(
        fmt::format("probe outcome status '{}' is not one of fits, out_of_memory, failed", status));
  }
  outcome.error = optional_field<std::string>(json, "error").value_or("");
  outcome.timed_steps = required<std::int64_t>(json, "timed_steps");
  outcome.wall_s = optional_field<double>(json, "wall_s").value_or(0.0);
  outcome.baseline_vm_bytes = optional_field<std::uint64_t>(json, "baseline_vm_bytes");
  outcome.limit_bytes = optional_field<std::uint64_t>(json, "limit_bytes");
  outcome.peak_vm_bytes = optional_field<std::uint64_t>(json, "peak_vm_bytes");
  outcome.peak_rss_bytes = optional_field<std::uint64_t>(json, "peak_rss_bytes");
  outcome.cuda_peak_reserved_bytes = optional_field<std::uint64_t>(json, "cuda_peak_reserved_bytes");
  outcome.timed_begin_ns = optional_field<std::int64_t>(json, "timed_begin_ns");
  outcome.timed_end_ns = optional_field<std::int64_t>(json, "timed_end_ns");
  outcome.step_ns = optional_field<double>(json, "step_ns");
  return outcome;
}

}  // namespace jetchar::experiments
