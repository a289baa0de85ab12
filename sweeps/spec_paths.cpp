#include "sweeps/spec_paths.h"

#include <fmt/format.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace jetchar::sweeps {
namespace {

namespace fs = std::filesystem;
namespace pb = google::protobuf;

// A data set's options that name files (loaders/dataset_spec.cpp reads them); a new one goes here too.
constexpr std::array<std::string_view, 2> kFileOptions = {"vocab", "dev"};
// The one kind whose PATH is no path: a shape ("3x32x32").
constexpr std::string_view kShapeKind = "synthetic";

// The fields whose string values are paths, by their name in the text, and an axis's list of values.
constexpr std::array<std::string_view, 5> kPathFieldNames = {"dataset", "pretrained", "device", "board", "values"};

void note(PathChanges* changes, const std::string& from, const std::string& to) {
  if (changes != nullptr && from != to) (*changes)[from] = to;
}

// "sim:FIXTURE" with FIXTURE a manifest path; a fixture name and every other board as given.
std::string resolve_board(const std::string& board, const fs::path& base) {
  constexpr std::string_view kSim = "sim:";
  if (!board.starts_with(kSim)) return board;
  const std::string_view fixture = std::string_view(board).substr(kSim.size());
  if (fixture.find('/') == std::string_view::npos && !fixture.ends_with(".manifest")) return board;
  return std::string(kSim) + resolve_spec_path(fixture, base);
}

// A text-format string literal for `value` (what protobuf's text parser reads back as `value`).
std::string string_literal(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\{:03o}", byte);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// An axis value of workload.dataset or workload.pretrained is a text-format string literal.
void resolve_axis(proto::Axis& axis, const fs::path& base, PathChanges* changes) {
  const bool dataset = axis.field() == "workload.dataset";
  if (!dataset && axis.field() != "workload.pretrained") return;
  const auto* field = proto::WorkloadSpec::descriptor()->FindFieldByName(dataset ? "dataset" : "pretrained");
  for (auto& value : *axis.mutable_values()) {
    proto::WorkloadSpec parsed;
    // A value that is no string literal is left for the plan to refuse with its field and value.
    if (!pb::TextFormat::ParseFieldValueFromString(value, field, &parsed)) continue;
    const std::string& path = dataset ? parsed.dataset() : parsed.pretrained();
    const std::string resolved = dataset ? resolve_dataset_paths(path, base) : resolve_spec_path(path, base);
    if (resolved == path) continue;
    const std::string literal = string_literal(resolved);
    note(changes, value, literal);
    value = literal;
  }
}

}  // namespace

fs::path spec_folder(const fs::path& spec_file) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(spec_file);
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute.lexically_normal();
  return canonical.parent_path();
}

std::string resolve_spec_path(std::string_view path, const fs::path& base) {
  if (path.empty()) return {};
  const fs::path given{std::string(path)};
  if (given.is_absolute()) return std::string(path);
  return (base / given).lexically_normal().string();
}

std::string resolve_dataset_paths(std::string_view dataset, const fs::path& base) {
  const auto colon = dataset.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::string(dataset);
  const std::string_view head = dataset.substr(0, colon);
  if (head.substr(0, head.find('/')) == kShapeKind) return std::string(dataset);
  std::string_view rest = dataset.substr(colon + 1);
  std::string_view options;
  const auto question = rest.find('?');
  if (question != std::string_view::npos) {
    options = rest.substr(question + 1);
    rest = rest.substr(0, question);
  }
  std::string out = fmt::format("{}:{}", head, resolve_spec_path(rest, base));
  if (question == std::string_view::npos) return out;
  out += '?';
  for (bool first = true;; first = false) {
    const auto amp = options.find('&');
    const std::string_view pair = options.substr(0, amp);
    if (!first) out += '&';
    const auto eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    if (eq != std::string_view::npos &&
        std::find(kFileOptions.begin(), kFileOptions.end(), key) != kFileOptions.end()) {
      out += fmt::format("{}={}", key, resolve_spec_path(pair.substr(eq + 1), base));
    } else {
      out += pair;
    }
    if (amp == std::string_view::npos) break;
    options = options.substr(amp + 1);
  }
  return out;
}

void resolve_spec_paths(proto::ExperimentSpec& spec, const fs::path& base, PathChanges* changes) {
  // Only what the spec holds: a run that names no workload must not gain an empty one.
  if (spec.has_workload()) {
    auto* workload = spec.mutable_workload();
    const std::string dataset = resolve_dataset_paths(workload->dataset(), base);
    note(changes, workload->dataset(), dataset);
    workload->set_dataset(dataset);
    const std::string pretrained = resolve_spec_path(workload->pretrained(), base);
    note(changes, workload->pretrained(), pretrained);
    workload->set_pretrained(pretrained);
  }
  if (spec.has_measurement()) {
    for (auto& meter : *spec.mutable_measurement()->mutable_meters()) {
      const std::string device = resolve_spec_path(meter.device(), base);
      note(changes, meter.device(), device);
      meter.set_device(device);
    }
  }
}

void resolve_spec_paths(proto::SweepSpec& sweep, const fs::path& base, PathChanges* changes) {
  const std::string board = resolve_board(sweep.board(), base);
  note(changes, sweep.board(), board);
  sweep.set_board(board);
  if (sweep.has_base()) resolve_spec_paths(*sweep.mutable_base(), base, changes);
  for (auto& run : *sweep.mutable_runs()) resolve_spec_paths(run, base, changes);
  for (auto& axis : *sweep.mutable_axes()) resolve_axis(axis, base, changes);
  for (auto& kind : *sweep.mutable_kinds()) {
    const std::string kind_board = resolve_board(kind.board(), base);
    note(changes, kind.board(), kind_board);
    kind.set_board(kind_board);
    for (auto& axis : *kind.mutable_axes()) resolve_axis(axis, base, changes);
  }
}

std::string rewrite_spec_paths(std::string_view text, const PathChanges& changes) {
  if (changes.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::string_view field;  // the last name in the text: the field a string value belongs to
  std::size_t at = 0;
  // Past spaces and comments from `from`.
  auto skip_blank = [&](std::size_t from) {
    while (from < text.size()) {
      if (std::isspace(static_cast<unsigned char>(text[from]))) {
        ++from;
      } else if (text[from] == '#') {
        const auto end = text.find('\n', from);
        from = end == std::string_view::npos ? text.size() : end;
      } else {
        break;
      }
    }
    return from;
  };
  // The end of the string literal that starts at `from` (its closing quote included).
  auto literal_end = [&](std::size_t from) {
    const char quote = text[from];
    std::size_t i = from + 1;
    while (i < text.size() && text[i] != quote && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
    return std::min(i + 1, text.size());
  };
  while (at < text.size()) {
    const char c = text[at];
    if (c == '#') {
      const auto end = text.find('\n', at);
      const std::size_t stop = end == std::string_view::npos ? text.size() : end;
      out.append(text.substr(at, stop - at));
      at = stop;
    } else if (c == '"' || c == '\'') {
      // Adjacent literals ("a" "b") are one value.
      std::string value;
      std::size_t end = at;
      for (std::size_t next = at; next < text.size() && (text[next] == '"' || text[next] == '\'');
           next = skip_blank(end)) {
        end = literal_end(next);
        pb::io::Tokenizer::ParseStringAppend(std::string(text.substr(next, end - next)), &value);
      }
      const auto change = changes.find(value);
      const bool path_field = std::find(kPathFieldNames.begin(), kPathFieldNames.end(), field) != kPathFieldNames.end();
      if (path_field && change != changes.end()) {
        out += string_literal(change->second);
      } else {
        out.append(text.substr(at, end - at));
      }
      at = end;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = at;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      field = text.substr(at, end - at);
      out.append(field);
      at = end;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-') {
      // A number (1.5e-3, 0x1F, inf) is no field name.
      std::size_t end = at + 1;
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '.' || text[end] == '_' ||
              ((text[end] == '-' || text[end] == '+') && (text[end - 1] == 'e' || text[end - 1] == 'E')))) {
        ++end;
      }
      out.append(text.substr(at, end - at));
      at = end;
    } else {
      out += c;
      ++at;
    }
  }
  return out;
}

}  // namespace jetchar::sweeps
