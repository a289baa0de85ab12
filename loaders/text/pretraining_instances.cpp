#include "loaders/text/pretraining_instances.h"

#include <fmt/format.h>

#include <deque>
#include <stdexcept>

#include "loaders/rng.h"

namespace jetchar::loaders::text {
namespace {

// truncate_seq_pair: drop one token at a time from the longer segment, its front or its back
// with equal chance, until the pair fits.
std::size_t truncate_pair(std::deque<std::int32_t>& a, std::deque<std::int32_t>& b, std::size_t capacity, Rng& rng) {
  std::size_t removed = 0;
  while (a.size() + b.size() > capacity) {
    auto& longer = a.size() > b.size() ? a : b;
    if (rng.uniform() < 0.5) {
      longer.pop_front();
    } else {
      longer.pop_back();
    }
    ++removed;
  }
  return removed;
}

}  // namespace

PretrainingInstances pack_pretraining_instances(const std::vector<std::vector<std::vector<std::int32_t>>>& documents,
                                                std::int32_t cls_id, std::int32_t sep_id,
                                                const PackingOptions& options) {
  if (options.max_length < 5) {
    throw std::invalid_argument(fmt::format(
        "pretraining max_length {} leaves no room for [CLS] A [SEP] B [SEP] with a token in each segment (at least 5)",
        options.max_length));
  }
  if (!(options.short_seq_prob >= 0.0 && options.short_seq_prob <= 1.0)) {
    throw std::invalid_argument(
        fmt::format("pretraining short_seq_prob {} is not a probability in [0, 1]", options.short_seq_prob));
  }
  Rng rng(options.seed);
  PretrainingInstances instances;
  const std::size_t max_tokens = options.max_length - 3;
  auto emit = [&](const std::deque<std::int32_t>& a, const std::deque<std::int32_t>& b) {
    instances.ids.push_back(cls_id);
    instances.ids.insert(instances.ids.end(), a.begin(), a.end());
    instances.ids.push_back(sep_id);
    std::size_t second = instances.ids.size();
    if (!b.empty()) {
      instances.ids.insert(instances.ids.end(), b.begin(), b.end());
      instances.ids.push_back(sep_id);
    }
    if (b.empty()) second = instances.ids.size();
    instances.second.push_back(second);
    instances.starts.push_back(instances.ids.size());
  };
  for (const auto& document : documents) {
    std::size_t target = max_tokens;
    if (rng.uniform() < options.short_seq_prob)
      target = static_cast<std::size_t>(rng.between(2, static_cast<std::int64_t>(max_tokens)));
    std::vector<const std::vector<std::int32_t>*> chunk;
    std::size_t chunk_length = 0;
    for (std::size_t i = 0; i < document.size(); ++i) {
      if (!document[i].empty()) {
        chunk.push_back(&document[i]);
        chunk_length += document[i].size();
      }
      if (chunk.empty() || (i + 1 < document.size() && chunk_length < target)) continue;
      // A ends after a random number of the chunk's sentences; B is the rest.
      const std::size_t a_end =
          chunk.size() >= 2 ? static_cast<std::size_t>(rng.between(1, static_cast<std::int64_t>(chunk.size()) - 1)) : 1;
      std::deque<std::int32_t> a, b;
      for (std::size_t s = 0; s < chunk.size(); ++s)
        (s < a_end ? a : b).insert((s < a_end ? a : b).end(), chunk[s]->begin(), chunk[s]->end());
      // A single segment has the positions of B's [SEP] too.
      instances.truncated_tokens += truncate_pair(a, b, b.empty() ? max_tokens + 1 : max_tokens, rng);
      emit(a, b);
      chunk.clear();
      chunk_length = 0;
    }
  }
  return instances;
}

}  // namespace jetchar::loaders::text
