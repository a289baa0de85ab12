#include "jetson/simulated/board_fixture.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "sysfs/cpu_list.h"
#include "sysfs/errno_name.h"
#include "sysfs/error.h"
#include "sysfs/injected_errors.h"
#include "sysfs/root.h"
#include "sysfs/whole_file.h"

namespace fs = std::filesystem;

namespace jetchar::jetson {
namespace {

constexpr int kMaxIncludeDepth = 16;
// Bounds that keep a mistyped (or hostile) repeat from producing millions of files.
constexpr size_t kMaxRepeatValues = 4096;
constexpr size_t kMaxEntries = 200000;
constexpr std::uintmax_t kMaxManifestBytes = 16 << 20;
constexpr std::string_view kManifestName = "board.manifest";
constexpr std::string_view kSyntax =
    "one of: 'file PATH = VALUE', 'file PATH <<TAG', 'raw PATH = VALUE', 'dtstrings PATH = a | b', "
    "'link PATH -> TARGET', 'dir PATH', 'copy PATH <- FILE', 'remove PATH', 'mode PATH = 0444', "
    "'fail-read PATH = ERRNO', 'fail-write PATH = ERRNO', 'include FILE', 'repeat VAR in LIST' ... 'end'";

struct Line {
  int number;
  std::string text;
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

class Parser {
 public:
  Parser(fs::path base_dir, std::string source, int depth, std::vector<FixtureEntry>& out)
      : base_dir_(std::move(base_dir)), source_(std::move(source)), depth_(depth), out_(out) {}

  void parse_text(std::string_view text) {
    std::vector<Line> lines;
    int number = 0;
    std::istringstream stream{std::string(text)};
    for (std::string line; std::getline(stream, line);) lines.push_back({++number, std::move(line)});
    parse_block(lines, 0, lines.size(), {});
  }

 private:
  [[noreturn]] void fail(const Line& line, std::string_view expected) const {
    throw sysfs::FormatError(fmt::format("{}:{}", source_, line.number), std::string(trim(line.text)),
                             std::string(expected));
  }

  std::string origin(const Line& line) const { return fmt::format("{}:{}", source_, line.number); }

  static std::string substitute(std::string text, const std::map<std::string, std::string>& vars) {
    for (const auto& [name, value] : vars) {
      const std::string key = "{" + name + "}";
      for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
        text.replace(at, key.size(), value);
      }
    }
    return text;
  }

  void parse_block(const std::vector<Line>& lines, size_t begin, size_t end,
                   const std::map<std::string, std::string>& vars) {
    for (size_t i = begin; i < end; ++i) {
      const Line line{lines[i].number, substitute(lines[i].text, vars)};
      const std::string_view text = trim(line.text);
      if (text.empty() || text.front() == '#') continue;
      const size_t space = text.find_first_of(" \t");
      const std::string_view keyword = text.substr(0, space);
      const std::string_view rest = space == std::string_view::npos ? std::string_view{} : trim(text.substr(space));

      if (keyword == "repeat") {
        i = parse_repeat(lines, i, end, vars, line, rest);
      } else if (keyword == "file" && rest.find("<<") != std::string_view::npos &&
                 (rest.find(" = ") == std::string_view::npos || rest.find("<<") < rest.find(" = "))) {
        i = parse_heredoc(lines, i, end, vars, line, rest);
      } else if (keyword == "file" || keyword == "raw" || keyword == "dtstrings") {
        parse_content(line, keyword, rest);
      } else if (keyword == "mode" || keyword == "fail-read" || keyword == "fail-write") {
        parse_attribute(line, keyword, rest);
      } else if (keyword == "link") {
        parse_link(line, rest);
      } else if (keyword == "dir") {
        add(line, FixtureEntry::Kind::kDir, path_of(line, rest), {});
      } else if (keyword == "remove") {
        add(line, FixtureEntry::Kind::kRemove, path_of(line, rest), {});
      } else if (keyword == "copy") {
        parse_copy(line, rest);
      } else if (keyword == "include") {
        parse_include(line, rest);
      } else if (keyword == "end") {
        fail(line, "'end' only after 'repeat VAR in LIST'");
      } else {
        fail(line, kSyntax);
      }
    }
  }

  // file|raw|dtstrings PATH = VALUE: a file's content ('file' adds the newline sysfs prints).
  void parse_content(const Line& line, std::string_view keyword, std::string_view rest) {
    const size_t eq = rest.find(" =");
    if (eq == std::string_view::npos) fail(line, fmt::format("'{} PATH = VALUE'", keyword));
    std::string_view value = rest.substr(eq + 2);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    std::string content;
    if (keyword == "dtstrings") {
      content = dtstrings(line, value);
    } else {
      content = unescape(line, trim(value));
      if (keyword == "file") content.push_back('\n');
    }
    add(line, FixtureEntry::Kind::kFile, path_of(line, rest.substr(0, eq)), std::move(content));
  }

  // Device-tree string lists: every string NUL-terminated, as the kernel exposes them.
  std::string dtstrings(const Line& line, std::string_view value) const {
    std::string content;
    std::string_view remaining = trim(value);
    // Split at each bar that is not escaped ("\|" is a bar inside a string).
    auto next_bar = [](std::string_view text) {
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '|') return i;
      }
      return std::string_view::npos;
    };
    while (true) {
      const size_t bar = next_bar(remaining);
      content += unescape(line, trim(remaining.substr(0, bar)));
      content.push_back('\0');
      if (bar == std::string_view::npos) break;
      remaining = remaining.substr(bar + 1);
    }
    return content;
  }

  // mode PATH = MODE, fail-read|fail-write PATH = ERRNO.
  void parse_attribute(const Line& line, std::string_view keyword, std::string_view rest) {
    const size_t eq = rest.find(" = ");
    if (eq == std::string_view::npos) fail(line, fmt::format("'{} PATH = VALUE'", keyword));
    const std::string value(trim(rest.substr(eq + 3)));
    FixtureEntry::Kind kind = FixtureEntry::Kind::kMode;
    if (keyword == "mode") {
      const bool octal = value.size() >= 3 && value.size() <= 4 &&
                         std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '7'; });
      if (!octal) fail(line, "'mode PATH = MODE' with MODE the permission bits in octal, such as 0444 or 0600");
    } else {
      kind = keyword == "fail-read" ? FixtureEntry::Kind::kFailRead : FixtureEntry::Kind::kFailWrite;
      if (!sysfs::errno_from_name(value)) {
        fail(line, fmt::format("'{} PATH = ERRNO' with ERRNO one of {}", keyword, sysfs::known_errno_names()));
      }
    }
    add(line, kind, path_of(line, rest.substr(0, eq)), value);
  }

  // link PATH -> TARGET.
  void parse_link(const Line& line, std::string_view rest) {
    const size_t arrow = rest.find(" -> ");
    if (arrow == std::string_view::npos) fail(line, "'link PATH -> TARGET'");
    const std::string_view target = trim(rest.substr(arrow + 4));
    if (target.empty()) fail(line, "a non-empty link target");
    add(line, FixtureEntry::Kind::kLink, path_of(line, rest.substr(0, arrow)), std::string(target));
  }

  // copy PATH <- FILE: a file beside the manifest, copied as it is.
  void parse_copy(const Line& line, std::string_view rest) {
    const size_t arrow = rest.find(" <- ");
    if (arrow == std::string_view::npos) fail(line, "'copy PATH <- FILE' (FILE relative to the manifest)");
    FixtureEntry entry;
    entry.kind = FixtureEntry::Kind::kCopy;
    entry.path = path_of(line, rest.substr(0, arrow));
    const std::string_view from = trim(rest.substr(arrow + 4));
    if (from.empty() || from.front() == '/') fail(line, "'copy PATH <- FILE' with FILE relative to the manifest");
    entry.copy_from = (base_dir_ / std::string(from)).lexically_normal();
    entry.origin = origin(line);
    std::error_code ec;
    if (!fs::is_regular_file(entry.copy_from, ec)) {
      throw sysfs::IoError(entry.copy_from.string(), fmt::format("copy (named at {})", entry.origin), ENOENT);
    }
    out_.push_back(std::move(entry));
  }

  // include FILE: another manifest, parsed into the same entries.
  void parse_include(const Line& line, std::string_view rest) {
    if (rest.empty()) fail(line, "'include FILE' (relative to the manifest)");
    if (depth_ >= kMaxIncludeDepth) fail(line, fmt::format("at most {} nested includes", kMaxIncludeDepth));
    if (rest.front() == '/') fail(line, "'include FILE' with FILE relative to the manifest");
    const fs::path file = (base_dir_ / std::string(rest)).lexically_normal();
    // Only non-empty regular files of sane size: never a device or a /proc file that blocks.
    std::error_code ec;
    const bool regular = fs::is_regular_file(file, ec);
    const auto size = regular ? fs::file_size(file, ec) : 0;
    if (!regular || ec || size == 0 || size > kMaxManifestBytes) {
      throw sysfs::IoError(file.string(), fmt::format("include (named at {}; a non-empty manifest file)", origin(line)),
                           regular ? EINVAL : ENOENT);
    }
    const std::string text_of_file = sysfs::read_whole_file(file, [&](const sysfs::IoError& e) {
      return sysfs::IoError(file.string(), fmt::format("read (included at {})", origin(line)), e.error_number());
    });
    Parser(file.parent_path(), file.string(), depth_ + 1, out_).parse_text(text_of_file);
  }

  size_t parse_repeat(const std::vector<Line>& lines, size_t at, size_t end,
                      const std::map<std::string, std::string>& vars, const Line& line, std::string_view rest) {
    // repeat VAR in LIST: LIST is a kernel cpu list ("0-3,6") or words separated by spaces.
    // repeat A,B in a1:b1 a2:b2: several variables take the ':'-separated parts of each word.
    const size_t in = rest.find(" in ");
    if (in == std::string_view::npos) fail(line, "'repeat VAR in LIST' (LIST like 0-3,6 or words)");
    std::vector<std::string> names;
    {
      std::string_view rest_names = trim(rest.substr(0, in));
      while (true) {
        const size_t comma = rest_names.find(',');
        names.emplace_back(trim(rest_names.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest_names = rest_names.substr(comma + 1);
      }
    }
    for (const auto& name : names) {
      if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
          })) {
        fail(line, "variable names of letters, digits and '_', separated by ','");
      }
    }
    const std::string_view list = trim(rest.substr(in + 4));
    std::vector<std::string> values;
    if (names.size() == 1 && !list.empty() && std::isdigit(static_cast<unsigned char>(list.front())) &&
        list.find(' ') == std::string_view::npos && list.find(':') == std::string_view::npos) {
      for (int v : sysfs::parse_cpu_list(list, origin(line))) values.push_back(std::to_string(v));
    } else {
      std::istringstream words{std::string(list)};
      for (std::string word; words >> word;) values.push_back(word);
    }
    if (values.empty()) fail(line, "a non-empty LIST after 'in'");
    if (values.size() > kMaxRepeatValues)
      fail(line, fmt::format("at most {} values in a repeat LIST", kMaxRepeatValues));
    std::vector<std::map<std::string, std::string>> bindings;
    for (const auto& value : values) {
      auto inner = vars;
      if (names.size() == 1) {
        inner[names[0]] = value;
      } else {
        std::vector<std::string> parts;
        std::string_view remaining = value;
        while (true) {
          const size_t colon = remaining.find(':');
          parts.emplace_back(remaining.substr(0, colon));
          if (colon == std::string_view::npos) break;
          remaining = remaining.substr(colon + 1);
        }
        if (parts.size() != names.size()) {
          fail(line, fmt::format("each word of LIST with {} ':'-separated parts ('{}' has {})", names.size(), value,
                                 parts.size()));
        }
        for (size_t k = 0; k < names.size(); ++k) inner[names[k]] = parts[k];
      }
      bindings.push_back(std::move(inner));
    }
    // Find the matching 'end', counting nested repeats.
    int depth = 1;
    size_t close = at + 1;
    for (; close < end; ++close) {
      const std::string_view t = trim(lines[close].text);
      if (t.rfind("repeat ", 0) == 0) ++depth;
      if (t == "end" && --depth == 0) break;
    }
    if (close >= end) fail(line, "an 'end' line closing this repeat");
    for (const auto& inner : bindings) parse_block(lines, at + 1, close, inner);
    return close;
  }

  size_t parse_heredoc(const std::vector<Line>& lines, size_t at, size_t end,
                       const std::map<std::string, std::string>& vars, const Line& line, std::string_view rest) {
    const size_t mark = rest.find("<<");
    const std::string tag(trim(rest.substr(mark + 2)));
    if (tag.empty()) fail(line, "'file PATH <<TAG' followed by lines and a closing 'TAG' line");
    std::string content;
    size_t close = at + 1;
    for (; close < end; ++close) {
      const std::string text = substitute(lines[close].text, vars);
      if (trim(text) == tag) break;
      content += text + "\n";
    }
    if (close >= end) fail(line, fmt::format("a closing '{}' line", tag));
    add(line, FixtureEntry::Kind::kFile, path_of(line, rest.substr(0, mark)), std::move(content));
    return close;
  }

  std::string path_of(const Line& line, std::string_view text) const {
    std::string path(trim(text));
    if (path.empty() || path.front() != '/') fail(line, "an absolute kernel path such as /sys/...");
    for (const auto& part : fs::path(path)) {
      if (part == "..") fail(line, "a path without '..'");
    }
    if (path.find_first_of(" \t") != std::string::npos) fail(line, "a path without spaces");
    return path;
  }

  std::string unescape(const Line& line, std::string_view value) const {
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] != '\\') {
        out.push_back(value[i]);
        continue;
      }
      if (++i >= value.size()) fail(line, "an escape after '\\' (\\n \\t \\0 \\\\ \\| \\xHH)");
      switch (value[i]) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case '0': out.push_back('\0'); break;
        case '\\': out.push_back('\\'); break;
        case '|': out.push_back('|'); break;
        case 'x': {
          if (i + 2 >= value.size()) fail(line, "two hex digits after \\x");
          const std::string hex(value.substr(i + 1, 2));
          if (!std::isxdigit(static_cast<unsigned char>(hex[0])) ||
              !std::isxdigit(static_cast<unsigned char>(hex[1]))) {
            fail(line, "two hex digits after \\x");
          }
          out.push_back(static_cast<char>(std::stoi(hex, nullptr, 16)));
          i += 2;
          break;
        }
        default: fail(line, "an escape among \\n \\t \\0 \\\\ \\| \\xHH");
      }
    }
    return out;
  }

  void add(const Line& line, FixtureEntry::Kind kind, std::string path, std::string content) {
    if (out_.size() >= kMaxEntries) fail(line, fmt::format("a manifest of at most {} entries", kMaxEntries));
    FixtureEntry entry;
    entry.kind = kind;
    entry.path = std::move(path);
    entry.content = std::move(content);
    entry.origin = origin(line);
    out_.push_back(std::move(entry));
  }

  fs::path base_dir_;
  std::string source_;
  int depth_;
  std::vector<FixtureEntry>& out_;
};

// The host path of `kernel_path` inside `root`, following symlinks of the tree inside the root
// for every component but the last (so the last can be created, replaced or removed itself).
fs::path host_path(const sysfs::Root& root, const std::string& kernel_path) {
  const fs::path kernel(kernel_path);
  const std::string parent = root.canonical(kernel.parent_path().string());
  return root.resolve(parent) / kernel.filename();
}

void expand_entry(const sysfs::Root& root, const FixtureEntry& entry) {
  const fs::path target = host_path(root, entry.path);
  std::error_code ec;
  auto check = [&](std::string_view operation) {
    if (ec) throw sysfs::IoError(target.string(), fmt::format("{} (from {})", operation, entry.origin), ec.value());
  };
  if (entry.kind != FixtureEntry::Kind::kRemove) {
    fs::create_directories(target.parent_path(), ec);
    check("create parent folders of");
  }
  switch (entry.kind) {
    case FixtureEntry::Kind::kFile: {
      if (fs::is_symlink(target, ec)) fs::remove(target, ec);
      std::ofstream out(target, std::ios::binary | std::ios::trunc);
      out.write(entry.content.data(), static_cast<std::streamsize>(entry.content.size()));
      if (!out) throw sysfs::IoError(target.string(), fmt::format("write (from {})", entry.origin), EIO);
      break;
    }
    case FixtureEntry::Kind::kLink:
      if (fs::is_symlink(target, ec) || fs::exists(target, ec)) fs::remove_all(target, ec);
      fs::create_symlink(entry.content, target, ec);
      check("create symlink");
      break;
    case FixtureEntry::Kind::kDir:
      fs::create_directories(target, ec);
      check("create folder");
      break;
    case FixtureEntry::Kind::kCopy:
      fs::copy_file(entry.copy_from, target, fs::copy_options::overwrite_existing, ec);
      check("copy to");
      break;
    case FixtureEntry::Kind::kRemove:
      fs::remove_all(target, ec);
      check("remove");
      break;
    case FixtureEntry::Kind::kMode: break;  // applied once the tree stands
    case FixtureEntry::Kind::kFailRead:
    case FixtureEntry::Kind::kFailWrite:
      // A failing attribute still exists: create it empty unless a directive made it.
      if (!fs::exists(target, ec) && !fs::is_symlink(target, ec)) {
        std::ofstream out(target, std::ios::binary);
        if (!out) throw sysfs::IoError(target.string(), fmt::format("create (from {})", entry.origin), EIO);
      }
      break;
  }
}

// Modes and injected errors apply once the whole tree stands (a later 'file' must not reset a
// mode, an injected error is keyed by the canonical path, which needs the links).
void apply_modes_and_errors(const sysfs::Root& root, const std::vector<FixtureEntry>& entries) {
  std::map<std::string, const FixtureEntry*> modes;
  sysfs::InjectedErrorTable errors;
  std::vector<std::pair<std::string, const FixtureEntry*>> error_entries;
  auto under = [](const std::string& path, const std::string& removed) {
    return path == removed || path.rfind(removed + "/", 0) == 0;
  };
  for (const auto& entry : entries) {
    switch (entry.kind) {
      case FixtureEntry::Kind::kMode: modes[entry.path] = &entry; break;
      case FixtureEntry::Kind::kFailRead:
      case FixtureEntry::Kind::kFailWrite: error_entries.emplace_back(entry.path, &entry); break;
      case FixtureEntry::Kind::kRemove:
        std::erase_if(modes, [&](const auto& item) { return under(item.first, entry.path); });
        std::erase_if(error_entries, [&](const auto& item) { return under(item.first, entry.path); });
        break;
      default: break;
    }
  }
  for (const auto& [path, entry] : modes) {
    const fs::path target = host_path(root, path);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(target, ec))) {
      throw sysfs::IoError(target.string(),
                           fmt::format("set mode (from {}; no directive creates {})", entry->origin, path), ENOENT);
    }
    fs::permissions(target, static_cast<fs::perms>(std::stoi(entry->content, nullptr, 8)), fs::perm_options::replace,
                    ec);
    if (ec) throw sysfs::IoError(target.string(), fmt::format("set mode (from {})", entry->origin), ec.value());
  }
  for (const auto& [path, entry] : error_entries) {
    const auto access = entry->kind == FixtureEntry::Kind::kFailRead ? sysfs::Access::kRead : sysfs::Access::kWrite;
    errors[{access, root.canonical(path)}] = *sysfs::errno_from_name(entry->content);
  }
  const fs::path file = root.prefix() / sysfs::InjectedErrors::kFileName;
  std::error_code ec;
  fs::remove(file, ec);
  if (errors.empty()) return;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  const std::string text = sysfs::format_injected_errors(errors);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw sysfs::IoError(file.string(), "write", EIO);
}

}  // namespace

FixtureManifest FixtureManifest::load(const fs::path& manifest_file) {
  return parse(sysfs::read_whole_file(manifest_file), manifest_file.parent_path(), manifest_file.string());
}

FixtureManifest FixtureManifest::parse(std::string_view text, const fs::path& base_dir, std::string_view source) {
  FixtureManifest manifest;
  Parser(base_dir, std::string(source), 0, manifest.entries_).parse_text(text);
  return manifest;
}

void FixtureManifest::expand(const fs::path& root_dir) const {
  const sysfs::Root root(root_dir);
  for (const auto& entry : entries_) expand_entry(root, entry);
  apply_modes_and_errors(root, entries_);
}

fs::path board_fixtures_dir() {
  std::error_code ec;
  if (const char* env = std::getenv("JETCHAR_FIXTURES_DIR"); env != nullptr && *env != '\0') return env;
  if (fs::is_directory("tests/fixtures/boards", ec)) return fs::absolute("tests/fixtures/boards");
  // An installed jetchar (<prefix>/bin/jetchar) ships them in <prefix>/share/jetchar/boards.
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = executable.parent_path().parent_path() / "share/jetchar/boards";
    if (fs::is_directory(installed, ec)) return installed;
  }
#ifdef JETCHAR_SOURCE_DIR
  fs::path built_from = fs::path(JETCHAR_SOURCE_DIR) / "tests/fixtures/boards";
  if (fs::is_directory(built_from, ec)) return built_from;
#endif
  return {};
}

std::vector<std::string> list_board_fixtures() {
  std::vector<std::string> names;
  const fs::path dir = board_fixtures_dir();
  std::error_code ec;
  if (dir.empty()) return names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (fs::is_regular_file(it->path() / kManifestName)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string board_fixture_name(const fs::path& manifest_file) {
  if (manifest_file.filename() == kManifestName) return manifest_file.parent_path().filename().string();
  return manifest_file.stem().string();
}

fs::path find_board_fixture(std::string_view name_or_path) {
  std::error_code ec;
  fs::path given{std::string(name_or_path)};
  if (name_or_path.find('/') != std::string_view::npos || fs::exists(given, ec)) {
    if (fs::is_regular_file(given, ec)) return given;
    if (fs::is_regular_file(given / kManifestName, ec)) return given / kManifestName;
    throw std::invalid_argument(
        fmt::format("board fixture '{}': no such manifest file or folder with a {}", name_or_path, kManifestName));
  }
  const fs::path dir = board_fixtures_dir();
  if (!dir.empty() && !name_or_path.empty() && fs::is_regular_file(dir / given / kManifestName, ec)) {
    return dir / given / kManifestName;
  }
  const auto names = list_board_fixtures();
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument(fmt::format("unknown board fixture '{}'; known fixtures{}: {} (or give a path to a {})",
                                          name_or_path, dir.empty() ? "" : " in " + dir.string(),
                                          known.empty() ? "none found (set JETCHAR_FIXTURES_DIR)" : known,
                                          kManifestName));
}

void remove_board_tree(const fs::path& root_dir) noexcept {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root_dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ignored;
    if (it->is_directory(ignored) && !it->is_symlink(ignored)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
  }
  fs::remove_all(root_dir, ec);
}

ExpandedFixture::ExpandedFixture(std::string_view name_or_path) {
  manifest_file_ = find_board_fixture(name_or_path);
  name_ = board_fixture_name(manifest_file_);
  const FixtureManifest manifest = FixtureManifest::load(manifest_file_);
  dir_ = OwnedTempDir("jetchar-board");
  manifest.expand(dir_.path());  // a throw here removes the folder with dir_
}

}  // namespace jetchar::jetson
