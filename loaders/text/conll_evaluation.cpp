#include "loaders/text/conll_evaluation.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

namespace jetchar::loaders::text {

namespace {

struct Tag {
  std::string prefix;  // "B", "I", "E", "S", "O"
  std::string type;
};

Tag split(const std::string& tag) {
  if (tag == "O" || tag.empty()) return {"O", ""};
  if (tag.size() >= 2 && tag[1] == '-' && (tag[0] == 'B' || tag[0] == 'I' || tag[0] == 'E' || tag[0] == 'S')) {
    return {tag.substr(0, 1), tag.substr(2)};
  }
  return {"I", tag};  // the IO scheme: a bare type is an inside tag
}

// end_of_chunk: does a chunk end between the previous token and this one?
bool chunk_ends(const Tag& previous, const Tag& current) {
  const auto& p = previous.prefix;
  const auto& c = current.prefix;
  if (p == "B" && (c == "B" || c == "S" || c == "O")) return true;
  if (p == "I" && (c == "B" || c == "S" || c == "O")) return true;
  if (p == "E" || p == "S") return true;
  return p != "O" && previous.type != current.type;
}

// start_of_chunk: does a chunk start at this token?
bool chunk_starts(const Tag& previous, const Tag& current) {
  const auto& p = previous.prefix;
  const auto& c = current.prefix;
  if (c == "B" || c == "S") return true;
  if ((p == "E" || p == "S") && (c == "E" || c == "I")) return true;
  if (p == "O" && (c == "E" || c == "I")) return true;
  return c != "O" && previous.type != current.type;
}

double ratio(std::int64_t numerator, std::int64_t denominator) {
  return denominator > 0 ? static_cast<double>(numerator) / static_cast<double>(denominator) : 0.0;
}

}  // namespace

std::vector<Chunk> extract_chunks(const std::vector<std::string>& tags) {
  std::vector<Chunk> chunks;
  Tag previous{"O", ""};
  std::optional<Chunk> open;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    const auto current = split(tags[i]);
    if (open && chunk_ends(previous, current)) {
      open->end = i;
      chunks.push_back(*open);
      open.reset();
    }
    if (chunk_starts(previous, current)) open = Chunk{current.type, i, i};
    previous = current;
  }
  if (open) {
    open->end = tags.size();
    chunks.push_back(*open);
  }
  return chunks;
}

double ChunkCounts::precision() const { return ratio(correct, predicted); }
double ChunkCounts::recall() const { return ratio(correct, gold); }
double ChunkCounts::f1() const {
  const double p = precision();
  const double r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

void EntityEvaluator::add(const std::vector<std::string>& gold, const std::vector<std::string>& predicted) {
  if (gold.size() != predicted.size()) {
    throw std::invalid_argument(
        fmt::format("sentence {}: {} gold tags but {} predicted tags; both must tag every token", sentences_,
                    gold.size(), predicted.size()));
  }
  ++sentences_;
  const auto gold_chunks = extract_chunks(gold);
  const auto predicted_chunks = extract_chunks(predicted);
  for (const auto& chunk : gold_chunks) {
    ++scores_.overall.gold;
    ++scores_.by_type[chunk.type].gold;
  }
  for (const auto& chunk : predicted_chunks) {
    ++scores_.overall.predicted;
    auto& counts = scores_.by_type[chunk.type];
    ++counts.predicted;
    if (std::find(gold_chunks.begin(), gold_chunks.end(), chunk) != gold_chunks.end()) {
      ++scores_.overall.correct;
      ++counts.correct;
    }
  }
}

}  // namespace jetchar::loaders::text
