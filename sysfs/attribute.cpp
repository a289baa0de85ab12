#include "sysfs/attribute.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <sstream>

#include "sysfs/cpu_list.h"
#include "sysfs/error.h"
#include "sysfs/unique_fd.h"
#include "sysfs/whole_file.h"

namespace jetchar::sysfs {
namespace {

// Reads the whole file with read(2) (sysfs/whole_file.h says why).
std::string read_raw(const Root& root, std::string_view path) {
  const std::string canonical = root.canonical(path);
  root.record(path);
  if (const auto injected = root.injected_error(canonical, Access::kRead)) {
    throw IoError(std::string(path), "read", *injected);
  }
  const std::string resolved = root.resolve(canonical).string();
  const UniqueFd fd(::open(resolved.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(std::string(path), "read", errno);
  return read_to_end(fd.get(), path);
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  return text;
}

}  // namespace

std::string_view trim_value(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  return trim(text);
}

std::string read_string(const Root& root, std::string_view path) {
  return std::string(trim_value(read_raw(root, path)));
}

std::optional<std::string> try_read_string(const Root& root, std::string_view path) {
  try {
    return read_string(root, path);
  } catch (const IoError&) {
    return std::nullopt;
  }
}

namespace {

// A unit word after a number: "ma", "mw", "kHz", or in parentheses, "(kHz)".
bool is_unit(std::string_view word) {
  if (word.size() >= 2 && word.front() == '(' && word.back() == ')') word = word.substr(1, word.size() - 2);
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::int64_t parse_int(std::string_view text, std::string_view source, bool allow_unit_suffix) {
  const std::string_view trimmed = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  const std::string_view rest = trim(std::string_view(end, trimmed.data() + trimmed.size() - end));
  const bool suffix_ok = rest.empty() || (allow_unit_suffix && is_unit(rest));
  if (ec != std::errc() || end == trimmed.data() || !suffix_ok) {
    throw FormatError(
        std::string(source), std::string(trimmed),
        allow_unit_suffix ? "an integer, optionally with a unit such as ' ma' or ' (kHz)'" : "an integer");
  }
  return value;
}

std::int64_t read_int(const Root& root, std::string_view path, bool allow_unit_suffix) {
  return parse_int(read_string(root, path), path, allow_unit_suffix);
}

std::optional<std::int64_t> try_read_int(const Root& root, std::string_view path) {
  const auto text = try_read_string(root, path);
  if (!text) return std::nullopt;
  try {
    return parse_int(*text, path);
  } catch (const FormatError&) {
    return std::nullopt;
  }
}

std::vector<std::int64_t> read_int_list(const Root& root, std::string_view path, bool allow_unit_suffix) {
  auto words = read_word_list(root, path);
  if (allow_unit_suffix && !words.empty() && is_unit(words.back())) words.pop_back();
  std::vector<std::int64_t> values;
  for (const auto& word : words) values.push_back(parse_int(word, path));
  return values;
}

std::vector<std::string> read_word_list(const Root& root, std::string_view path) {
  std::istringstream words(read_string(root, path));
  std::vector<std::string> list;
  for (std::string word; words >> word;) list.push_back(word);
  return list;
}

std::vector<int> read_cpu_list(const Root& root, std::string_view path) {
  return parse_cpu_list(read_string(root, path), path);
}

std::vector<std::string> read_dt_strings(const Root& root, std::string_view path) {
  const std::string content = read_raw(root, path);
  std::vector<std::string> strings;
  size_t start = 0;
  while (start < content.size()) {
    size_t end = content.find('\0', start);
    if (end == std::string::npos) end = content.size();
    if (end > start) strings.push_back(content.substr(start, end - start));
    start = end + 1;
  }
  for (const auto& s : strings) {
    for (const char c : s) {
      if (!std::isprint(static_cast<unsigned char>(c))) {
        throw FormatError(std::string(path), s, "NUL-separated printable device-tree strings");
      }
    }
  }
  return strings;
}

void write_string(const Root& root, std::string_view path, std::string_view value, Verify verify) {
  const std::string canonical = root.canonical(path);
  if (const auto injected = root.injected_error(canonical, Access::kWrite)) {
    throw IoError(std::string(path), "write", *injected, std::string(value));
  }
  const std::string resolved = root.resolve(canonical).string();
  UniqueFd fd(::open(resolved.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd) throw IoError(std::string(path), "write", errno, std::string(value));
  // One write(2) call: sysfs stores an attribute from a single write.
  ssize_t written;
  do {
    written = ::write(fd.get(), value.data(), value.size());
  } while (written < 0 && errno == EINTR);
  const int write_error = written < 0 ? errno : 0;
  // close(2) can report what the write did not (a deferred error of a file system).
  if (const int close_error = fd.close(); close_error != 0 && write_error == 0) {
    throw IoError(std::string(path), "write", close_error, std::string(value));
  }
  if (write_error != 0) throw IoError(std::string(path), "write", write_error, std::string(value));
  if (static_cast<size_t>(written) != value.size()) throw IoError(std::string(path), "write", EIO, std::string(value));
  if (verify == Verify::kReadBack) {
    const std::string back = read_string(root, path);
    if (back != trim(value)) {
      throw IoError(std::string(path), "verify write", 0, std::string(value) + "' but it reads back '" + back);
    }
  }
}

void write_int(const Root& root, std::string_view path, std::int64_t value, Verify verify) {
  write_string(root, path, std::to_string(value), verify);
}

}  // namespace jetchar::sysfs
