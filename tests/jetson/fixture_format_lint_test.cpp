// The format lint: every file of every board fixture, as it expands, must be written the way the
// kernel (or firmware, or tool) that owns it prints it, per docs/kernel-formats.md. That table
// names, for each attribute and L4T line, a format (a regular expression over the file's whole
// bytes, trailing newline and spaces included) and the errors a read can return, with the source
// code that prints it. A fixture written from memory ("0-3" for related_cpus) fails here.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "jetson/discovery/l4t_release.h"
#include "jetson/simulated/board_fixture.h"
#include "sysfs/attribute.h"
#include "sysfs/errno_name.h"
#include "sysfs/injected_errors.h"
#include "tests/support/build_tree.h"

namespace fs = std::filesystem;

namespace {

constexpr const char* kTable = "docs/kernel-formats.md";

struct Format {
  std::string name;
  std::string pattern;
  std::regex regex;
};

struct Row {
  int line_number = 0;
  std::string pattern;          ///< glob over kernel paths: '*' within a component, '**' across
  std::set<std::string> lines;  ///< "R32", "R35", ... ; empty = every line
  std::string format;
  std::set<std::string> errors;  ///< errno names a read may fail with
};

struct Table {
  std::map<std::string, Format> formats;
  std::vector<Row> rows;
};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

// The cells of a markdown table row; "\|" is a literal bar inside a cell.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell.push_back('|');
      ++i;
    } else if (line[i] == '|') {
      out.push_back(trim(cell));
      cell.clear();
    } else {
      cell.push_back(line[i]);
    }
  }
  return out;
}

std::string unquote(std::string cell) {
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`') return cell.substr(1, cell.size() - 2);
  return cell;
}

// Reads the "Formats" and "Attributes" tables of docs/kernel-formats.md.
Table load_table() {
  std::ifstream in(jetchar::testing::source_dir() / kTable);
  EXPECT_TRUE(in) << kTable << " is missing";
  Table table;
  std::string section;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind("## ", 0) == 0) section = trim(line.substr(3));
    if (line.rfind("| ", 0) != 0) continue;
    const auto row = cells(line);
    if (row.empty() || row[0].rfind("---", 0) == 0 || row[0] == "format" || row[0] == "path") continue;
    if (section == "Formats" && row.size() >= 2) {
      Format format;
      format.name = unquote(row[0]);
      format.pattern = unquote(row[1]);
      try {
        format.regex = std::regex(format.pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        ADD_FAILURE() << kTable << ":" << number << ": format " << format.name << " has a bad expression: " << e.what();
      }
      table.formats[format.name] = std::move(format);
    } else if (section == "Attributes" && row.size() >= 5) {
      Row r;
      r.line_number = number;
      r.pattern = unquote(row[0]);
      std::istringstream lines(row[1]);
      for (std::string word; lines >> word;) {
        if (word != "all") r.lines.insert(word);
      }
      r.format = unquote(row[2]);
      static const std::regex kErrno("E[A-Z]+");
      for (std::sregex_iterator it(row[3].begin(), row[3].end(), kErrno), end; it != end; ++it) {
        r.errors.insert(it->str());
      }
      table.rows.push_back(std::move(r));
    }
  }
  return table;
}

// '*' matches within one path component, '**' any number of whole components.
bool glob_match(std::string_view pattern, std::string_view path) {
  if (pattern.empty()) return path.empty();
  if (pattern.substr(0, 2) == "**") {
    std::string_view rest = pattern.substr(2);
    for (size_t i = 0; i <= path.size(); ++i) {
      if (glob_match(rest, path.substr(i))) return true;
    }
    return false;
  }
  if (pattern.front() == '*') {
    for (size_t i = 0; i <= path.size(); ++i) {
      if (glob_match(pattern.substr(1), path.substr(i))) return true;
      if (i < path.size() && path[i] == '/') break;
    }
    return false;
  }
  return !path.empty() && pattern.front() == path.front() && glob_match(pattern.substr(1), path.substr(1));
}

std::string visible(const std::string& bytes) {
  std::string out;
  for (const char c : bytes.substr(0, 200)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\0') {
      out += "\\0";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\\x" + std::to_string(static_cast<int>(c));
    } else {
      out.push_back(c);
    }
  }
  return bytes.size() > 200 ? out + "..." : out;
}

std::string fixture_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class FormatLintFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(FormatLintFixture, EveryFileIsWrittenAsTheKernelPrintsIt) {
  static const Table table = load_table();
  ASSERT_FALSE(table.rows.empty());
  const jetchar::jetson::ExpandedFixture fixture(GetParam());
  const jetchar::sysfs::Root root(fixture.root_dir());
  const auto release = jetchar::jetson::parse_nv_tegra_release(
      jetchar::sysfs::read_string(root, "/etc/nv_tegra_release"), "/etc/nv_tegra_release");
  const std::string line = "R" + std::to_string(release.major);

  jetchar::sysfs::InjectedErrorTable injected;
  if (fs::exists(fixture.root_dir() / jetchar::sysfs::InjectedErrors::kFileName)) {
    injected = jetchar::sysfs::parse_injected_errors(
        fixture_text(fixture.root_dir() / jetchar::sysfs::InjectedErrors::kFileName), "injected errors");
  }
  size_t checked = 0;
  for (auto it = fs::recursive_directory_iterator(fixture.root_dir()); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    const std::string path = "/" + it->path().lexically_relative(fixture.root_dir()).string();
    if (path.rfind("/.jetchar-", 0) == 0) continue;  // the tree's own bookkeeping, not the board's
    const Row* row = nullptr;
    for (const auto& candidate : table.rows) {
      if ((candidate.lines.empty() || candidate.lines.count(line) != 0) && glob_match(candidate.pattern, path)) {
        row = &candidate;
        break;
      }
    }
    if (row == nullptr) {
      ADD_FAILURE() << GetParam() << " (" << line << "): " << path << " has no row in " << kTable
                    << "; add one with the code that prints it";
      continue;
    }
    const auto format = table.formats.find(row->format);
    if (format == table.formats.end()) {
      ADD_FAILURE() << kTable << ":" << row->line_number << ": unknown format '" << row->format << "'";
      continue;
    }
    const auto read_error = injected.find({jetchar::sysfs::Access::kRead, path});
    if (read_error != injected.end()) {
      const std::string name = jetchar::sysfs::errno_name(read_error->second);
      EXPECT_TRUE(row->errors.count(name) != 0)
          << GetParam() << ": " << path << " fails with " << name << ", which " << kTable << ":" << row->line_number
          << " does not list for " << row->pattern;
    }
    const std::string bytes = fixture_text(it->path());
    // A file whose every read fails has no bytes to check.
    if (read_error != injected.end() && bytes.empty()) continue;
    EXPECT_TRUE(std::regex_match(bytes, format->second.regex))
        << GetParam() << " (" << line << "): " << path << " reads '" << visible(bytes) << "', which is not "
        << row->format << " (" << format->second.pattern << ") as " << kTable << ":" << row->line_number << " says for "
        << row->pattern;
    ++checked;
  }
  EXPECT_GT(checked, 50u);
}

INSTANTIATE_TEST_SUITE_P(AllBoards, FormatLintFixture, ::testing::ValuesIn(jetchar::jetson::list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The lint itself: a fixture written from memory fails it.
TEST(FormatLintTest, GlobsMatchComponentsAndDoubleStarCrossesThem) {
  EXPECT_TRUE(glob_match("/sys/devices/system/cpu/cpufreq/policy*/related_cpus",
                         "/sys/devices/system/cpu/cpufreq/policy4/related_cpus"));
  EXPECT_FALSE(glob_match("/sys/devices/system/cpu/cpufreq/policy*/related_cpus",
                          "/sys/devices/system/cpu/cpufreq/policy4/x/related_cpus"));
  EXPECT_TRUE(glob_match("/sys/devices/**/hwmon*/in*_input",
                         "/sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1/in1_input"));
}

TEST(FormatLintTest, TheRangeFormOfRelatedCpusIsRejected) {
  const Table table = load_table();
  const Row* row = nullptr;
  for (const auto& candidate : table.rows) {
    if (glob_match(candidate.pattern, "/sys/devices/system/cpu/cpufreq/policy0/related_cpus")) {
      row = &candidate;
      break;
    }
  }
  ASSERT_NE(row, nullptr);
  const auto& regex = table.formats.at(row->format).regex;
  EXPECT_TRUE(std::regex_match(std::string("0 1 2 3\n"), regex));
  EXPECT_FALSE(std::regex_match(std::string("0-3\n"), regex));
}

}  // namespace
