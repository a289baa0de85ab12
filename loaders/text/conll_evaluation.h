// Entity-level precision, recall and F1 of CoNLL-style tag sequences, as conlleval (the CoNLL-2000
// shared task's evaluation script, used for CoNLL-2003) and seqeval's default mode compute them.
// A chunk is a maximal run of tokens of one type; the start-of-chunk and end-of-chunk rules
// (conlleval's startOfChunk/endOfChunk, as seqeval's sequence_labeling.py extends them to E-/S-)
// find chunks in IOB1 (I- starts a chunk after O or another type, B- only separates two adjacent
// chunks of one type) and IOB2 (every chunk starts with B-) alike, and in IOE/IOBES tags. A predicted
// chunk is correct when a gold chunk has the same type, first and last token. Precision = correct
// / predicted chunks, recall = correct / gold chunks, F1 their harmonic mean; 0 when undefined.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace jetchar::loaders::text {

struct Chunk {
  std::string type;
  std::size_t begin = 0;  ///< first token
  std::size_t end = 0;    ///< one past the last token
  bool operator==(const Chunk&) const = default;
  auto operator<=>(const Chunk&) const = default;
};

/// The chunks of one sentence's tags ("O", "B-PER", "I-LOC", "E-ORG", "S-MISC"; jetchar reads a
/// tag without one of these prefixes as an inside tag of that type, the IO scheme).
std::vector<Chunk> extract_chunks(const std::vector<std::string>& tags);

struct ChunkCounts {
  std::int64_t correct = 0;
  std::int64_t predicted = 0;
  std::int64_t gold = 0;
  double precision() const;
  double recall() const;
  double f1() const;
};

struct EntityScores {
  ChunkCounts overall;
  std::map<std::string, ChunkCounts> by_type;
};

/// Accumulates sentences; each pair of tag sequences must have the same length.
class EntityEvaluator {
 public:
  /// Throws std::invalid_argument naming the sentence index and both lengths when they differ.
  void add(const std::vector<std::string>& gold, const std::vector<std::string>& predicted);
  const EntityScores& scores() const { return scores_; }

 private:
  EntityScores scores_;
  std::int64_t sentences_ = 0;
};

}  // namespace jetchar::loaders::text
