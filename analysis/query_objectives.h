// What an inference configuration is judged by besides one latency of a query (--latency): how
// fast it serves (that latency, or its throughput in samples/s) and how much energy it spends (per
// query, or per sample). Across batch sizes these disagree: a batch of 8 takes longer per query
// than a batch of 1 and spends more per query, but serves more samples per second and spends less
// per sample, so a latency-bound service and a throughput-bound one choose different
// configurations.
#pragma once

#include <optional>
#include <string_view>

namespace jetchar::analysis {

/// An inference configuration's speed: the latency of a query (less is better) or its throughput
/// (samples/s, more is better; analyses that minimise a time take the time per sample, 1 /
/// throughput).
enum class QuerySpeed { kLatency, kThroughput };
/// An inference configuration's energy: per query (a batch) or per sample (J/query / batch).
enum class QueryEnergy { kPerQuery, kPerSample };

std::string_view to_string(QuerySpeed speed);    ///< "latency", "throughput"
std::string_view to_string(QueryEnergy energy);  ///< "query", "sample"
/// "latency" or "throughput"; nullopt otherwise.
std::optional<QuerySpeed> parse_query_speed(std::string_view text);
/// "query" or "sample"; nullopt otherwise.
std::optional<QueryEnergy> parse_query_energy(std::string_view text);

}  // namespace jetchar::analysis
