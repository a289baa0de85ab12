#include "loaders/text/squad_predictions.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace jetchar::loaders::text {
namespace {

// Positions of the `count` largest logits, largest first; equal logits keep position order.
std::vector<std::int64_t> top_positions(std::span<const float> logits, std::size_t count) {
  std::vector<std::int64_t> positions(logits.size());
  std::iota(positions.begin(), positions.end(), 0);
  const auto keep = std::min(count, positions.size());
  std::partial_sort(positions.begin(), positions.begin() + static_cast<std::ptrdiff_t>(keep), positions.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      const auto la = logits[static_cast<std::size_t>(a)];
                      const auto lb = logits[static_cast<std::size_t>(b)];
                      return la > lb || (la == lb && a < b);
                    });
  positions.resize(keep);
  return positions;
}

}  // namespace

std::vector<SpanCandidate> best_window_spans(std::span<const float> start_logits, std::span<const float> end_logits,
                                             std::int64_t context_first, std::int64_t context_last,
                                             const SquadSpanOptions& options) {
  if (start_logits.size() != end_logits.size()) {
    throw std::invalid_argument(
        fmt::format("start logits ({} positions) and end logits ({} positions) differ in length", start_logits.size(),
                    end_logits.size()));
  }
  if (context_first < 0 || context_last < context_first ||
      context_last >= static_cast<std::int64_t>(start_logits.size())) {
    throw std::invalid_argument(fmt::format("context positions [{}, {}] are not within the {} logit positions",
                                            context_first, context_last, start_logits.size()));
  }
  if (options.n_best_size == 0 || options.max_answer_length == 0) {
    throw std::invalid_argument(fmt::format("n_best_size {} and max_answer_length {} must both be at least 1",
                                            options.n_best_size, options.max_answer_length));
  }
  const auto starts = top_positions(start_logits, options.n_best_size);
  const auto ends = top_positions(end_logits, options.n_best_size);
  const auto max_length = static_cast<std::int64_t>(options.max_answer_length);
  std::vector<SpanCandidate> spans;
  for (const auto start : starts) {
    if (start < context_first || start > context_last) continue;
    for (const auto end : ends) {
      if (end < start || end > context_last || end - start + 1 > max_length) continue;
      spans.push_back({start, end,
                       static_cast<double>(start_logits[static_cast<std::size_t>(start)]) +
                           static_cast<double>(end_logits[static_cast<std::size_t>(end)])});
    }
  }
  std::stable_sort(spans.begin(), spans.end(), [](const SpanCandidate& a, const SpanCandidate& b) {
    return a.score > b.score || (a.score == b.score && a.start < b.start);
  });
  if (spans.size() > options.n_best_size) spans.resize(options.n_best_size);
  return spans;
}

SquadPredictions::SquadPredictions(const SquadDataset& dataset, SquadSpanOptions options)
    : dataset_(&dataset),
      options_(options),
      best_(dataset.questions()),
      null_score_(dataset.version_2() ? dataset.questions() : 0) {
  if (options.n_best_size == 0 || options.max_answer_length == 0) {
    throw std::invalid_argument(fmt::format("n_best_size {} and max_answer_length {} must both be at least 1",
                                            options.n_best_size, options.max_answer_length));
  }
  if (!std::isfinite(options.null_score_diff_threshold)) {
    throw std::invalid_argument(
        fmt::format("null_score_diff_threshold {} must be a finite number", options.null_score_diff_threshold));
  }
}

void SquadPredictions::add(std::int64_t sample, std::span<const float> start_logits,
                           std::span<const float> end_logits) {
  if (sample < 0 || sample >= dataset_->size()) {
    throw std::invalid_argument(
        fmt::format("{}: sample {} is out of range 0..{}", dataset_->info().name, sample, dataset_->size() - 1));
  }
  const auto length = static_cast<std::size_t>(dataset_->info().layout.input_shape.at(0));
  if (start_logits.size() != length || end_logits.size() != length) {
    throw std::invalid_argument(fmt::format("{}: sample {} has {} positions, the logits {} and {}",
                                            dataset_->info().name, sample, length, start_logits.size(),
                                            end_logits.size()));
  }
  ++windows_;
  const std::size_t question = dataset_->feature(sample).question;
  if (dataset_->version_2()) {
    // The null answer: [CLS] at position 0 for both ends; the question keeps its smallest score.
    const double null_score = static_cast<double>(start_logits[0]) + static_cast<double>(end_logits[0]);
    auto& kept = null_score_.at(question);
    if (!kept || null_score < *kept) kept = null_score;
  }
  const auto [first, last] = dataset_->context_positions(sample);
  const auto spans = best_window_spans(start_logits, end_logits, first, last, options_);
  if (spans.empty()) return;
  auto& best = best_.at(question);
  const bool earlier = best && sample < best->sample;
  if (!best || spans.front().score > best->span.score || (spans.front().score == best->span.score && earlier)) {
    best = Best{sample, spans.front()};
  }
}

std::optional<std::string> SquadPredictions::prediction(std::size_t question) const {
  const auto& best = best_.at(question);
  if (dataset_->version_2()) {
    const auto& null_score = null_score_.at(question);
    if (!null_score) return std::nullopt;  // no window added
    if (!best || *null_score - best->span.score > options_.null_score_diff_threshold) return std::string();
  }
  if (!best) return std::nullopt;
  return dataset_->span_text(best->sample, best->span.start, best->span.end);
}

SquadScores SquadPredictions::scores() const {
  SquadEvaluator evaluator(dataset_->version_2() ? SquadVersion::kV2_0 : SquadVersion::kV1_1);
  for (std::size_t q = 0; q < best_.size(); ++q) evaluator.add(prediction(q), dataset_->gold_answers(q));
  return evaluator.scores();
}

}  // namespace jetchar::loaders::text
