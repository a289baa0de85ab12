// Every example a user is shown runs as written: the `jetchar ...` lines of every command's
// --help, of README.md and docs/*.md (code blocks), and of the header comment of each file in
// examples/. Each one is run through the real executable, word for word, in a temporary working
// directory (the only adaptation: relative outputs land there, and `examples/` there is the
// source tree's). Its exit status and a line of its output must be the ones that
// tests/cli/documented_examples.txt records for it; an example without a record, and a record
// whose example no document shows any more, fail.
//
// Examples of one document run in the order the document shows them, in one directory, so that
// `jetchar device capture -o my-board.manifest` followed by `jetchar device info --board
// sim:my-board.manifest` works as it does for a reader who types both. Each document is a test of
// its own (the --help tree of each top-level command, each Markdown file, each example file), so
// that ctest -j spreads them; each prints its slowest examples.
//
// Where a Markdown document shows what its examples print (a fenced block right after indented
// `jetchar` lines), every line of that block except `...` must be printed by those examples:
// numbers may differ (the figures are this machine's), runs of spaces may be longer or shorter
// (columns widen with the figures) and `...` in a line stands for what it leaves out; the stdout
// lines come in the order shown.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;

using jetchar::testing::read_text;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

/// The words of a command line as a shell splits them (quotes, no expansion). Pipes, redirections
/// and variables are not examples of jetchar alone: they are refused, so no document shows one.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      if (c == '|' || c == '>' || c == '<' || c == '$' || c == '`' || c == ';' || c == '&') {
        throw std::invalid_argument("'" + line + "' uses the shell ('" + std::string(1, c) + "'): show jetchar alone");
      }
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw std::invalid_argument("'" + line + "' has an unclosed quote");
  if (in_word) words.push_back(word);
  return words;
}

/// The example as a key: its words joined by single spaces (a document may align with two).
std::string example_key(const std::vector<std::string>& words) {
  std::string key;
  for (const auto& word : words) key += (key.empty() ? "" : " ") + word;
  return key;
}

/// Output a document shows for its examples `first`..`last` (indices into Document::examples).
struct ShownOutput {
  std::size_t first = 0;
  std::size_t last = 0;
  std::vector<std::string> lines;  ///< as shown, `...` lines left out
  std::string where;               ///< file:line of the block
};

struct Document {
  std::string name;                   ///< "jetchar sweep --help", "README.md", "examples/x.textproto"
  std::vector<std::string> examples;  ///< keys, in the order shown
  std::vector<ShownOutput> outputs;   ///< Markdown only
};

/// A shown output line as a pattern for a printed line: numbers stand for any number, a run of
/// spaces for any run of spaces, `...` for anything (what the document leaves out), the rest literally.
std::regex shown_line_pattern(const std::string& shown) {
  static const std::regex number(R"(^-?[0-9]+(\.[0-9]+)?)");
  std::string pattern = "^ *";
  const std::string line = trim(shown);
  for (std::size_t i = 0; i < line.size();) {
    std::smatch m;
    const bool starts_word = i == 0 || !std::isalnum(static_cast<unsigned char>(line[i - 1]));
    const std::string rest = line.substr(i);
    if (rest.rfind("...", 0) == 0) {
      pattern += ".*";
      i += 3;
    } else if (starts_word && std::regex_search(rest, m, number)) {
      pattern += R"(-?[0-9]+(\.[0-9]+)?)";
      i += m.length(0);
    } else if (line[i] == ' ') {
      pattern += " +";
      while (i < line.size() && line[i] == ' ') ++i;
    } else {
      if (std::strchr(R"(\^$.|?*+()[]{})", line[i]) != nullptr) pattern += '\\';
      pattern += line[i++];
    }
  }
  return std::regex(pattern + " *$");
}

/// `jetchar ...` at the start of a line (after indentation or a `$ ` prompt), without a trailing
/// `# comment`.
std::optional<std::string> example_in(const std::string& raw) {
  std::string line = trim(raw);
  if (line.rfind("$ ", 0) == 0) line = trim(line.substr(2));
  if (line.rfind("jetchar ", 0) != 0) return std::nullopt;
  static const std::regex comment(R"(\s+#.*$)");
  line = std::regex_replace(line, comment, "");
  return example_key(shell_words(line));
}

struct ExampleOutcome {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs jetchar with `args` in `cwd`; a command still running after `limit` is killed (the
/// bound only turns a hang into a failure, no timing is asserted).
ExampleOutcome run_in(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& io,
                      std::chrono::seconds limit = std::chrono::seconds(900)) {
  static int runs = 0;
  ++runs;
  const fs::path out = io / fmt::format("{}.out", runs);
  const fs::path err = io / fmt::format("{}.err", runs);
  const pid_t child = jetchar::testing::spawn_jetchar(args, out, err, cwd);
  const auto give_up = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) != child) {
    if (std::chrono::steady_clock::now() > give_up) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ExampleOutcome outcome;
  outcome.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  outcome.out = read_text(out);
  outcome.err = read_text(err);
  return outcome;
}

/// What tests/cli/documented_examples.txt records for one example.
struct Expectation {
  int exit_code = 0;
  std::vector<std::regex> stdout_lines;
  std::vector<std::regex> stderr_lines;
  std::vector<std::string> patterns;  ///< as written, for messages
  std::string where;                  ///< file:line
};

std::map<std::string, Expectation> read_expectations(const fs::path& file) {
  std::map<std::string, Expectation> expectations;
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Expectation* current = nullptr;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string where = fmt::format("{}:{}", file.filename().string(), number);
    if (trim(line).empty() || line[0] == '#') continue;
    if (line.rfind("$ ", 0) == 0) {
      const auto key = example_in(line);
      if (!key) throw std::runtime_error(where + ": '" + line + "' is not a jetchar command");
      if (expectations.count(*key) != 0) throw std::runtime_error(where + ": '" + *key + "' is recorded twice");
      current = &expectations[*key];
      current->where = where;
      continue;
    }
    if (current == nullptr) throw std::runtime_error(where + ": '" + line + "' comes before the first '$ jetchar ...'");
    const auto space = line.find(' ');
    const std::string field = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (field == "exit") {
      current->exit_code = std::stoi(value);
    } else if (field == "stdout" || field == "stderr") {
      (field == "stdout" ? current->stdout_lines : current->stderr_lines).emplace_back(value);
      current->patterns.push_back(field + " " + value);
    } else {
      throw std::runtime_error(where + ": '" + field + "' is not a field (exit, stdout, stderr)");
    }
  }
  for (const auto& [key, expectation] : expectations) {
    if (expectation.stdout_lines.empty() && expectation.stderr_lines.empty()) {
      throw std::runtime_error(expectation.where + ": '" + key + "' records no line of its output (stdout or stderr)");
    }
  }
  return expectations;
}

bool some_line_matches(const std::string& text, const std::regex& pattern) {
  for (const auto& line : lines_of(text)) {
    if (std::regex_search(line, pattern)) return true;
  }
  return false;
}

/// Subcommand names listed by a CLI11 help text (the lines after "Subcommands:").
std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const auto& line : lines_of(help)) {
    const std::string t = trim(line);
    if (t == "Subcommands:" || t == "SUBCOMMANDS:") {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (t.empty()) break;
    names.push_back(t.substr(0, t.find_first_of(" \t")));
  }
  return names;
}

/// jetchar's top-level commands, each a test of its --help tree's examples (the test list is made
/// before jetchar can be asked; DocumentedExamples.EveryTopLevelCommandHasItsHelpTest checks it).
const std::vector<std::string> kTopLevelCommands = {"device",  "data",    "models", "train", "infer",
                                                    "frontier", "monitor", "sweep",  "meter", "results",
                                                    "analyze", "report",  "help"};

/// The examples of one Markdown file (a path from the source tree's root) and the outputs it shows.
Document markdown_document(const std::string& relative) {
  const fs::path file = jetchar::testing::source_dir() / relative;
  Document document{relative, {}, {}};
  bool fenced = false;
  // The examples since the last prose line (indented ones only), and the fenced block that may
  // show their output.
  constexpr std::size_t kNoGroup = std::numeric_limits<std::size_t>::max();
  std::size_t group_first = kNoGroup;
  std::optional<ShownOutput> block;
  int number = 0;
  for (const auto& line : lines_of(read_text(file))) {
    ++number;
    if (trim(line).rfind("```", 0) == 0) {
      if (!fenced && group_first != kNoGroup) {
        block =
            ShownOutput{group_first, document.examples.size() - 1, {}, fmt::format("{}:{}", document.name, number)};
      } else if (fenced && block) {
        document.outputs.push_back(*block);
        block.reset();
      }
      if (fenced) group_first = kNoGroup;
      fenced = !fenced;
      continue;
    }
    const bool indented = line.rfind("    ", 0) == 0;
    if (!fenced && !indented && !trim(line).empty()) group_first = kNoGroup;
    if (!fenced && !indented) continue;
    auto key = example_in(line);
    if (key) {
      document.examples.push_back(*key);
      block.reset();  // a fenced block of commands shows no output
      if (!fenced && group_first == kNoGroup) group_first = document.examples.size() - 1;
    } else if (block && trim(line) != "...") {
      block->lines.push_back(line);
    }
  }
  return document;
}

/// README.md and docs/*.md that show an example, from the source tree's root.
std::vector<std::string> markdown_files() {
  std::vector<std::string> files;
  const fs::path docs = jetchar::testing::source_dir() / "docs";
  if (fs::is_directory(docs)) {
    for (const auto& entry : fs::directory_iterator(docs)) {
      if (entry.path().extension() == ".md") files.push_back("docs/" + entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  files.insert(files.begin(), "README.md");
  // Those that show an example.
  std::erase_if(files, [](const std::string& file) { return markdown_document(file).examples.empty(); });
  return files;
}

/// The examples the header comment (the leading `#` lines) of a file in examples/ shows.
Document example_file_document(const std::string& relative) {
  Document document{relative, {}, {}};
  for (const auto& line : lines_of(read_text(jetchar::testing::source_dir() / relative))) {
    if (line.rfind('#', 0) != 0) break;
    if (auto key = example_in(line.substr(1))) document.examples.push_back(*key);
  }
  return document;
}

/// The files of examples/ (from the source tree's root) whose header shows an example.
std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(jetchar::testing::source_dir() / "examples")) {
    const std::string relative = "examples/" + entry.path().filename().string();
    if (entry.is_regular_file() && !example_file_document(relative).examples.empty()) files.push_back(relative);
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// A test name for a document: its letters and digits, the rest as '_'.
std::string test_name_of(const std::string& document) {
  std::string name = document;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

class DocumentedExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar::testing::jetchar_executable())) {
      GTEST_SKIP() << jetchar::testing::jetchar_executable() << " is not built";
    }
    fs::create_directories(io_);
  }

  fs::path source(const std::string& relative) const { return jetchar::testing::source_dir() / relative; }

  /// The --help of `top` and of every command below it (all of jetchar's from the empty path).
  std::vector<Document> help_documents(const std::vector<std::string>& top = {}) {
    std::vector<Document> documents;
    std::vector<std::vector<std::string>> pending = {top};
    while (!pending.empty()) {
      const auto command = pending.front();
      pending.erase(pending.begin());
      auto args = command;
      args.push_back("--help");
      const ExampleOutcome help = run_in(args, dir_.path(), io_);
      Document document{"jetchar " + example_key(args), {}, {}};
      if (help.code != 0) ADD_FAILURE() << document.name << " exited " << help.code << ":\n" << help.err;
      for (const auto& line : lines_of(help.out)) {
        if (auto key = example_in(line)) document.examples.push_back(*key);
      }
      documents.push_back(document);
      for (const auto& name : subcommands_in(help.out)) {
        auto sub = command;
        sub.push_back(name);
        pending.push_back(sub);
      }
    }
    return documents;
  }

  /// README.md and docs/*.md: examples in code blocks (indented or fenced).
  std::vector<Document> markdown_documents() {
    std::vector<Document> documents;
    for (const auto& file : markdown_files()) documents.push_back(markdown_document(file));
    return documents;
  }


  /// The header comment (the leading `#` lines) of each file in examples/.
  std::vector<Document> example_file_documents() {
    std::vector<Document> documents;
    for (const auto& file : example_files()) documents.push_back(example_file_document(file));
    return documents;
  }

  /// Runs every example of `documents`, each document in a directory of its own.
  void run_all(const std::vector<Document>& documents) {
    const auto expectations = read_expectations(source("tests/cli/documented_examples.txt"));
    int ran = 0;
    int outputs = 0;
    std::vector<std::pair<double, std::string>> durations;  // printed, slowest first: where the time goes
    for (const auto& document : documents) {
      if (document.examples.empty()) continue;
      const fs::path cwd = dir_.path() / fmt::format("doc{}", ++documents_);
      fs::create_directories(cwd);
      fs::create_directory_symlink(source("examples"), cwd / "examples");
      std::vector<ExampleOutcome> outcomes;
      for (const auto& example : document.examples) {
        SCOPED_TRACE(document.name + ": " + example);
        outcomes.emplace_back();
        const auto found = expectations.find(example);
        if (found == expectations.end()) {
          ADD_FAILURE()
              << "'" << example << "' (shown by " << document.name
              << ") has no record in tests/cli/documented_examples.txt: add its exit status and a line of its output";
          continue;
        }
        const Expectation& expected = found->second;
        auto words = shell_words(example);
        words.erase(words.begin());  // "jetchar"
        const auto began = std::chrono::steady_clock::now();
        const ExampleOutcome& outcome = outcomes.back() = run_in(words, cwd, io_);
        durations.emplace_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(),
                               document.name + ": " + example);
        ++ran;
        const std::string shown =
            fmt::format("exit {}\nstdout:\n{}\nstderr:\n{}", outcome.code, outcome.out, outcome.err);
        EXPECT_EQ(outcome.code, expected.exit_code) << expected.where << "\n" << shown;
        for (std::size_t i = 0; i < expected.stdout_lines.size(); ++i) {
          EXPECT_TRUE(some_line_matches(outcome.out, expected.stdout_lines[i]))
              << expected.where << ": no line of stdout matches the recorded pattern\n"
              << shown;
        }
        for (std::size_t i = 0; i < expected.stderr_lines.size(); ++i) {
          EXPECT_TRUE(some_line_matches(outcome.err, expected.stderr_lines[i]))
              << expected.where << ": no line of stderr matches the recorded pattern\n"
              << shown;
        }
      }
      for (const auto& shown : document.outputs) expect_shown_output(shown, document, outcomes);
      outputs += static_cast<int>(document.outputs.size());
    }
    std::printf("ran %d documented examples; checked the %d outputs they show\n", ran, outputs);
    std::sort(durations.rbegin(), durations.rend());
    for (std::size_t i = 0; i < durations.size() && i < 8; ++i)
      std::printf("  %6.1f s  %s\n", durations[i].first, durations[i].second.c_str());
  }

  /// The lines `shown` shows are printed by its examples: stdout's in the order shown, the others
  /// anywhere in stderr.
  static void expect_shown_output(const ShownOutput& shown, const Document& document,
                                  const std::vector<ExampleOutcome>& outcomes) {
    std::vector<std::string> out;
    std::vector<std::string> err;
    std::string printed;
    for (std::size_t i = shown.first; i <= shown.last; ++i) {
      const auto o = lines_of(outcomes[i].out);
      const auto e = lines_of(outcomes[i].err);
      out.insert(out.end(), o.begin(), o.end());
      err.insert(err.end(), e.begin(), e.end());
      printed += fmt::format("$ {}\nstdout:\n{}stderr:\n{}", document.examples[i], outcomes[i].out, outcomes[i].err);
    }
    std::size_t next = 0;  // the first stdout line the next shown line may be
    for (const auto& line : shown.lines) {
      const std::regex pattern = shown_line_pattern(line);
      const auto matches = [&](const std::string& printed_line) { return std::regex_search(printed_line, pattern); };
      const auto in_out = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(next), out.end(), matches);
      if (in_out != out.end()) {
        next = static_cast<std::size_t>(in_out - out.begin()) + 1;
      } else {
        EXPECT_TRUE(std::any_of(err.begin(), err.end(), matches))
            << shown.where << ": the document shows '" << line
            << "', which its examples do not print (or not in this order)\n"
            << printed;
      }
    }
  }

  jetchar::testing::TempDir dir_;
  fs::path io_ = dir_.path() / "io";
  int documents_ = 0;
};

TEST(DocumentedExampleParsing, TakesTheCommandAsAShellSplitsIt) {
  EXPECT_EQ(example_in("    jetchar sweep run  examples/a.textproto   # runs it"),
            "jetchar sweep run examples/a.textproto");
  EXPECT_EQ(example_in("$ jetchar train --dataset 'fashion-mnist:/usr/share/a b'"),
            "jetchar train --dataset fashion-mnist:/usr/share/a b");
  EXPECT_EQ(example_in("scripts/test.sh"), std::nullopt);
  EXPECT_EQ(example_in("see `jetchar models`"), std::nullopt);
  EXPECT_THROW(example_in("jetchar results export r --csv > runs.csv"), std::invalid_argument);
}

TEST(DocumentedExampleParsing, ShownOutputLetsFiguresAndColumnWidthsDiffer) {
  const auto pattern = shown_line_pattern("    0       50      0.006  custom: 4 cores 1728/306 MHz (J/query -)");
  EXPECT_TRUE(std::regex_search("   12      500    123.456  custom: 8 cores 2201.6/1300.5 MHz (J/query -)", pattern));
  EXPECT_FALSE(std::regex_search("    0       50      0.006  custom: 4 cores 1728/306 GHz (J/query -)", pattern));
  EXPECT_FALSE(
      std::regex_search("    0       50      0.006  custom: 4 cores 1728/306 MHz (J/query -) and more", pattern));
  EXPECT_TRUE(
      std::regex_search("predictor: time form sum, power 9.1 %", shown_line_pattern("predictor: ..., power 0.4 %")));
  // A number inside a word is part of the word.
  EXPECT_FALSE(std::regex_search("ch2 VDD", shown_line_pattern("ch1 VDD")));
}

TEST(DocumentedExampleParsing, ListsTheSubcommandsOfAHelpText) {
  EXPECT_EQ(subcommands_in("Usage: jetchar [OPTIONS] SUBCOMMAND\n\nSubcommands:\n  device    the board\n  sweep   "
                           "runs\n\nExit codes:\n"),
            (std::vector<std::string>{"device", "sweep"}));
}

TEST_F(DocumentedExamples, EveryRecordIsShownSomewhere) {
  std::set<std::string> shown;
  for (const auto& documents : {help_documents(), markdown_documents(), example_file_documents()}) {
    for (const auto& document : documents) shown.insert(document.examples.begin(), document.examples.end());
  }
  for (const auto& [example, expectation] : read_expectations(source("tests/cli/documented_examples.txt"))) {
    EXPECT_TRUE(shown.count(example) != 0)
        << expectation.where << ": '" << example
        << "' is shown by no --help, README.md, docs/ or examples/ header: remove its record";
  }
}

TEST_F(DocumentedExamples, EveryTopLevelCommandHasItsHelpTest) {
  const ExampleOutcome help = run_in({"--help"}, dir_.path(), io_);
  ASSERT_EQ(help.code, 0) << help.err;
  auto listed = subcommands_in(help.out);
  auto tested = kTopLevelCommands;
  std::sort(listed.begin(), listed.end());
  std::sort(tested.begin(), tested.end());
  EXPECT_EQ(listed, tested) << "jetchar --help lists other commands than kTopLevelCommands: add the new one there";
}

// One test per document, so that ctest -j spreads them: each --help tree of a top-level command,
// each Markdown file, each example file (examples of one document share a working directory).
class HelpExamples : public DocumentedExamples, public ::testing::WithParamInterface<std::string> {};
TEST_P(HelpExamples, RunAsWritten) { run_all(help_documents({GetParam()})); }
INSTANTIATE_TEST_SUITE_P(OfEachCommand, HelpExamples, ::testing::ValuesIn(kTopLevelCommands),
                         [](const auto& info) { return test_name_of(info.param); });

class MarkdownExamples : public DocumentedExamples, public ::testing::WithParamInterface<std::string> {};
TEST_P(MarkdownExamples, RunAsWritten) { run_all({markdown_document(GetParam())}); }
INSTANTIATE_TEST_SUITE_P(OfEachDocument, MarkdownExamples, ::testing::ValuesIn(markdown_files()),
                         [](const auto& info) { return test_name_of(info.param); });

class ExampleFileExamples : public DocumentedExamples, public ::testing::WithParamInterface<std::string> {};
TEST_P(ExampleFileExamples, RunAsWritten) { run_all({example_file_document(GetParam())}); }
INSTANTIATE_TEST_SUITE_P(OfEachFile, ExampleFileExamples, ::testing::ValuesIn(example_files()),
                         [](const auto& info) { return test_name_of(info.param); });

}  // namespace
}  // namespace jetchar::cli
