#include "loaders/text/squad.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders::text {
namespace {

using nlohmann::json;

std::string_view type_name(json::value_t type) {
  switch (type) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::null: return "null";
    default: return "something else";
  }
}

/// Validates one SQuAD file while walking it; every error says where in the file it is.
class Walker {
 public:
  explicit Walker(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(std::string_view where, std::string_view what) const {
    throw TextFormatError(fmt::format("{}: {}: {}", source_, where, what));
  }

  const json& member(const json& object, const char* key, json::value_t type, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(where, fmt::format("missing \"{}\" (expected {})", key, type_name(type)));
    const bool integer_ok = type == json::value_t::number_integer && it->is_number_integer();
    if (it->type() != type && !integer_ok) {
      fail(where, fmt::format("\"{}\" is {}, expected {}", key, type_name(it->type()), type_name(type)));
    }
    return *it;
  }

  void require_object(const json& value, const std::string& where) const {
    if (!value.is_object()) fail(where, fmt::format("is {}, expected an object", type_name(value.type())));
  }

 private:
  std::string_view source_;
};

}  // namespace

SquadData parse_squad(std::string_view text, std::string_view source) {
  // nlohmann rejects ill-formed UTF-8 too, but reports where it stopped reading rather than where
  // the bad sequence starts.
  check_utf8(text, source);
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann reports the byte position just past the offending character.
    throw TextFormatError(
        fmt::format("{}: not valid JSON at byte offset {}: {}", source, e.byte > 0 ? e.byte - 1 : 0, e.what()));
  } catch (const json::exception& e) {
    // A number too large for a double ("1e999") is an out_of_range error, not a parse_error
    // (found by loaders_text_squad_fuzz).
    throw TextFormatError(fmt::format("{}: not valid JSON: {}", source, e.what()));
  }
  const Walker walk(source);
  walk.require_object(root, "top level");
  SquadData data;
  if (const auto version = root.find("version"); version != root.end() && version->is_string()) {
    data.version = version->get<std::string>();
  }
  const json& articles = walk.member(root, "data", json::value_t::array, "top level");
  data.articles = articles.size();
  for (std::size_t a = 0; a < articles.size(); ++a) {
    const std::string article_path = fmt::format("data[{}]", a);
    walk.require_object(articles[a], article_path);
    std::string title;
    if (const auto t = articles[a].find("title"); t != articles[a].end() && t->is_string())
      title = t->get<std::string>();
    const json& paragraphs = walk.member(articles[a], "paragraphs", json::value_t::array, article_path);
    for (std::size_t p = 0; p < paragraphs.size(); ++p) {
      const std::string paragraph_path = fmt::format("{}.paragraphs[{}]", article_path, p);
      walk.require_object(paragraphs[p], paragraph_path);
      SquadParagraph paragraph;
      paragraph.title = title;
      paragraph.context =
          walk.member(paragraphs[p], "context", json::value_t::string, paragraph_path).get<std::string>();
      const std::u32string context =
          decode_utf8(paragraph.context, fmt::format("{}: {}.context", source, paragraph_path)).code_points;
      paragraph.context_code_points = static_cast<std::int64_t>(context.size());
      const std::size_t paragraph_index = data.paragraphs.size();
      data.paragraphs.push_back(std::move(paragraph));

      const json& qas = walk.member(paragraphs[p], "qas", json::value_t::array, paragraph_path);
      for (std::size_t q = 0; q < qas.size(); ++q) {
        std::string where = fmt::format("{}.qas[{}]", paragraph_path, q);
        walk.require_object(qas[q], where);
        SquadQuestion question;
        question.paragraph = paragraph_index;
        const json& id = walk.member(qas[q], "id", json::value_t::string, where);
        question.id = id.get<std::string>();
        where += fmt::format(" (question id {})", question.id);
        question.question = walk.member(qas[q], "question", json::value_t::string, where).get<std::string>();
        if (const auto impossible = qas[q].find("is_impossible"); impossible != qas[q].end()) {
          if (!impossible->is_boolean()) walk.fail(where, "\"is_impossible\" must be true or false");
          question.is_impossible = impossible->get<bool>();
        }
        const json& answers = walk.member(qas[q], "answers", json::value_t::array, where);
        if (answers.empty() && !question.is_impossible) {
          walk.fail(where,
                    "no answers; SQuAD v1.1 questions need at least one (v2 marks unanswerable ones "
                    "\"is_impossible\": true)");
        }
        for (std::size_t n = 0; n < answers.size(); ++n) {
          const std::string answer_path = fmt::format("{}: answers[{}]", where, n);
          walk.require_object(answers[n], answer_path);
          SquadAnswer answer;
          answer.text = walk.member(answers[n], "text", json::value_t::string, answer_path).get<std::string>();
          const json& start = walk.member(answers[n], "answer_start", json::value_t::number_integer, answer_path);
          if (start.is_number_unsigned() && start.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
            walk.fail(answer_path, fmt::format("answer_start {} is outside the context ({} code points)",
                                               start.get<std::uint64_t>(), context.size()));
          }
          answer.start = start.get<std::int64_t>();
          const std::u32string answer_text = decode_utf8(answer.text, answer_path).code_points;
          answer.length = static_cast<std::int64_t>(answer_text.size());
          const auto context_length = static_cast<std::int64_t>(context.size());
          if (answer.start < 0 || answer.start > context_length || answer.length > context_length - answer.start) {
            walk.fail(answer_path, fmt::format("answer_start {} + {} code points of \"{}\" is outside the context "
                                               "({} code points); offsets count code points, not bytes",
                                               answer.start, answer.length, answer.text, context_length));
          }
          const std::u32string_view found =
              std::u32string_view(context).substr(static_cast<std::size_t>(answer.start), answer_text.size());
          if (found != answer_text) {
            walk.fail(answer_path, fmt::format("answer text \"{}\" does not match the context at code point {} "
                                               "(\"{}\"); offsets count code points, not bytes",
                                               answer.text, answer.start, encode_utf8(found)));
          }
          question.answers.push_back(std::move(answer));
        }
        data.questions.push_back(std::move(question));
      }
    }
  }
  return data;
}

SquadData read_squad(const std::filesystem::path& file) {
  const std::string content = sysfs::read_whole_file(file, [&](const sysfs::IoError& e) {
    return TextFormatError(
        fmt::format("{}: cannot read the SQuAD file: {}", file.string(), sysfs::errno_text(e.error_number())));
  });
  return parse_squad(content, file.string());
}

}  // namespace jetchar::loaders::text
