#include "loaders/text/squad_evaluation.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include "loaders/text/utf8.h"

namespace jetchar::loaders::text {

namespace {

std::u32string lower(std::u32string_view text) {
  std::u16string utf16;
  for (const char32_t c : text) {
    UChar units[2];
    int32_t length = 0;
    U16_APPEND_UNSAFE(units, length, static_cast<UChar32>(c));
    utf16.append(reinterpret_cast<const char16_t*>(units), static_cast<std::size_t>(length));
  }
  std::u16string lowered(utf16.size() * 3 + 1, u'\0');
  UErrorCode status = U_ZERO_ERROR;
  const auto n =
      u_strToLower(reinterpret_cast<UChar*>(lowered.data()), static_cast<int32_t>(lowered.size()),
                   reinterpret_cast<const UChar*>(utf16.data()), static_cast<int32_t>(utf16.size()), "", &status);
  if (U_FAILURE(status)) return std::u32string(text);  // cannot happen with 3x room; keep the text as is
  std::u32string out;
  for (int32_t i = 0; i < n;) {
    UChar32 c = 0;
    U16_NEXT(reinterpret_cast<const UChar*>(lowered.data()), i, n, c);
    out.push_back(static_cast<char32_t>(c));
  }
  return out;
}

// string.punctuation: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
bool ascii_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

// Python's \w for str patterns: letters, numbers, underscore.
bool word_character(char32_t c) {
  if (c == U'_') return true;
  const auto category = u_charType(static_cast<UChar32>(c));
  return u_isalpha(static_cast<UChar32>(c)) || category == U_DECIMAL_DIGIT_NUMBER || category == U_LETTER_NUMBER ||
         category == U_OTHER_NUMBER;
}

bool whitespace(char32_t c) { return u_isspace(static_cast<UChar32>(c)) || (c >= 0x1c && c <= 0x1f) || c == 0x85; }

// re.sub(r'\b(a|an|the)\b', ' ', text)
std::u32string remove_articles(const std::u32string& text) {
  std::u32string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool boundary_before = i == 0 || !word_character(text[i - 1]);
    bool matched = false;
    if (boundary_before) {
      for (const std::u32string_view article : {U"a", U"an", U"the"}) {
        if (text.compare(i, article.size(), article) != 0) continue;
        const auto end = i + article.size();
        if (end == text.size() || !word_character(text[end])) {
          out.push_back(U' ');
          i = end;
          matched = true;
          break;
        }
      }
    }
    if (!matched) out.push_back(text[i++]);
  }
  return out;
}

std::vector<std::string> tokens(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find(' ', start);
    const auto stop = end == std::string_view::npos ? text.size() : end;
    if (stop > start) out.emplace_back(text.substr(start, stop - start));
    start = stop + 1;
  }
  return out;
}

// Token-bag F1 of normalized token lists; nullopt when either list is empty (the versions differ there).
std::optional<double> token_f1(const std::vector<std::string>& predicted, const std::vector<std::string>& expected) {
  if (predicted.empty() || expected.empty()) return std::nullopt;
  std::map<std::string, std::int64_t> counts;
  for (const auto& token : expected) ++counts[token];
  std::int64_t common = 0;
  for (const auto& token : predicted) {
    auto it = counts.find(token);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  if (common == 0) return 0.0;
  const double precision = static_cast<double>(common) / static_cast<double>(predicted.size());
  const double recall = static_cast<double>(common) / static_cast<double>(expected.size());
  return 2 * precision * recall / (precision + recall);
}

}  // namespace

std::string normalize_squad_answer(std::string_view text) {
  const auto decoded = decode_utf8(text, "answer text");
  std::u32string no_punctuation;
  for (const char32_t c : lower(decoded.code_points)) {
    if (!ascii_punctuation(c)) no_punctuation.push_back(c);
  }
  const auto no_articles = remove_articles(no_punctuation);
  // ' '.join(text.split())
  std::u32string joined;
  bool pending_space = false;
  for (const char32_t c : no_articles) {
    if (whitespace(c)) {
      pending_space = !joined.empty();
      continue;
    }
    if (pending_space) joined.push_back(U' ');
    pending_space = false;
    joined.push_back(c);
  }
  return encode_utf8(joined);
}

double squad_exact_match(std::string_view prediction, std::string_view gold) {
  return normalize_squad_answer(prediction) == normalize_squad_answer(gold) ? 1.0 : 0.0;
}

double squad_f1(std::string_view prediction, std::string_view gold) {
  return token_f1(tokens(normalize_squad_answer(prediction)), tokens(normalize_squad_answer(gold))).value_or(0.0);
}

double squad_v2_f1(std::string_view prediction, std::string_view gold) {
  const auto predicted = tokens(normalize_squad_answer(prediction));
  const auto expected = tokens(normalize_squad_answer(gold));
  if (predicted.empty() || expected.empty()) return predicted == expected ? 1.0 : 0.0;
  return *token_f1(predicted, expected);
}

void SquadEvaluator::add(const std::optional<std::string>& prediction, const std::vector<std::string>& gold_answers) {
  const bool v2 = version_ == SquadVersion::kV2_0;
  if (gold_answers.empty() && !v2) {
    throw std::invalid_argument("SQuAD v1.1 question " + std::to_string(has_answer_.questions) +
                                " has no gold answer; exact match and F1 need at least one");
  }
  // evaluate-v2.0.py: HasAns by the raw answers; the gold answers scored are those that do not
  // normalize to nothing, else "" alone.
  Sums& sums = gold_answers.empty() ? no_answer_ : has_answer_;
  ++sums.questions;
  if (!prediction) return;
  ++answered_;
  std::vector<std::string> scored;
  for (const auto& gold : gold_answers) {
    if (!v2 || !normalize_squad_answer(gold).empty()) scored.push_back(gold);
  }
  if (scored.empty()) scored.emplace_back();
  double best_exact = 0;
  double best_f1 = 0;
  for (const auto& gold : scored) {
    best_exact = std::max(best_exact, squad_exact_match(*prediction, gold));
    best_f1 = std::max(best_f1, v2 ? squad_v2_f1(*prediction, gold) : squad_f1(*prediction, gold));
  }
  sums.exact_match += best_exact;
  sums.f1 += best_f1;
}

SquadScores SquadEvaluator::scores() const {
  auto percent = [](double sum, std::int64_t questions) {
    return questions > 0 ? 100.0 * sum / static_cast<double>(questions) : 0.0;
  };
  SquadScores scores;
  scores.questions = has_answer_.questions + no_answer_.questions;
  scores.answered = answered_;
  scores.exact_match = percent(has_answer_.exact_match + no_answer_.exact_match, scores.questions);
  scores.f1 = percent(has_answer_.f1 + no_answer_.f1, scores.questions);
  if (version_ == SquadVersion::kV2_0) {
    for (const auto& [subset, sums] :
         {std::pair{&scores.has_answer, &has_answer_}, std::pair{&scores.no_answer, &no_answer_}}) {
      if (sums->questions == 0) continue;
      *subset = SquadSubsetScores{sums->questions, percent(sums->exact_match, sums->questions),
                                  percent(sums->f1, sums->questions)};
    }
  }
  return scores;
}

}  // namespace jetchar::loaders::text
