#include "analysis/query_objectives.h"

namespace jetchar::analysis {

std::string_view to_string(QuerySpeed speed) { return speed == QuerySpeed::kThroughput ? "throughput" : "latency"; }

std::string_view to_string(QueryEnergy energy) { return energy == QueryEnergy::kPerSample ? "sample" : "query"; }

std::optional<QuerySpeed> parse_query_speed(std::string_view text) {
  if (text == "latency") return QuerySpeed::kLatency;
  if (text == "throughput") return QuerySpeed::kThroughput;
  return std::nullopt;
}

std::optional<QueryEnergy> parse_query_energy(std::string_view text) {
  if (text == "query") return QueryEnergy::kPerQuery;
  if (text == "sample") return QueryEnergy::kPerSample;
  return std::nullopt;
}

}  // namespace jetchar::analysis
