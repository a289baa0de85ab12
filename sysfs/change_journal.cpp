#include "sysfs/change_journal.h"

#include "sysfs/external_attribute.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "sysfs/attribute.h"
#include "sysfs/boot_id.h"
#include "sysfs/error.h"
#include "sysfs/output_file.h"
#include "sysfs/unique_fd.h"
#include "sysfs/whole_file.h"

namespace fs = std::filesystem;

namespace jetchar::sysfs {
namespace {

constexpr std::string_view kMagic = "jetchar-change-journal 2";
constexpr std::string_view kMagicVersion1 = "jetchar-change-journal 1";
constexpr std::string_view kBootTag = "@boot";

std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return hash;
}

std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (std::isprint(byte)) {
          out += c;
        } else {
          out += fmt::format("\\x{:02x}", byte);
        }
    }
  }
  return out;
}

std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i >= text.size()) return std::nullopt;
    switch (text[i]) {
      case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'x': {
        if (i + 2 >= text.size()) return std::nullopt;
        const std::string hex(text.substr(i + 1, 2));
        if (hex.size() != 2 || !std::isxdigit(static_cast<unsigned char>(hex[0])) ||
            !std::isxdigit(static_cast<unsigned char>(hex[1]))) {
          return std::nullopt;
        }
        out += static_cast<char>(std::stoi(hex, nullptr, 16));
        i += 2;
        break;
      }
      default: return std::nullopt;
    }
  }
  return out;
}

std::string record_line(std::string_view first, std::string_view second) {
  const std::string body = escape(first) + "\t" + escape(second);
  return fmt::format("{}\t{:08x}\n", body, fnv1a(body));
}

// A complete line split into its two fields when its checksum matches.
std::optional<std::pair<std::string, std::string>> parse_record(std::string_view line) {
  const size_t last_tab = line.rfind('\t');
  if (last_tab == std::string_view::npos) return std::nullopt;
  const std::string_view body = line.substr(0, last_tab);
  if (line.substr(last_tab + 1) != fmt::format("{:08x}", fnv1a(body))) return std::nullopt;
  const size_t tab = body.find('\t');
  if (tab == std::string_view::npos) return std::nullopt;
  auto first = unescape(body.substr(0, tab));
  auto second = unescape(body.substr(tab + 1));
  if (!first || !second) return std::nullopt;
  return std::make_pair(std::move(*first), std::move(*second));
}

// Raw content of a kernel attribute: the journal keeps the exact bytes, trailing newline
// included, so that a restore leaves a fixture tree byte-identical.
std::string read_attribute_raw(const Root& root, std::string_view path) {
  if (const auto injected = root.injected_error(root.canonical(path), Access::kRead)) {
    throw IoError(std::string(path), "read (to journal its original value)", *injected);
  }
  const fs::path resolved = root.resolve(path);
  const UniqueFd fd(::open(resolved.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(std::string(path), "read (to journal its original value)", errno);
  return read_to_end(fd.get(), path);
}

void fsync_directory(const fs::path& dir) {
  const UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw IoError(dir.string(), "open directory to sync", errno);
  if (::fsync(fd.get()) != 0) throw IoError(dir.string(), "sync directory", errno);
}

// Creates `dir` and its missing parents, syncing each parent so that the new entries survive a
// power loss as well.
void create_directories_durably(const fs::path& dir) {
  if (fs::is_directory(dir)) return;
  if (dir.has_parent_path() && dir.parent_path() != dir) create_directories_durably(dir.parent_path());
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) throw IoError(dir.string(), "create state directory", errno);
  fsync_directory(dir.parent_path());
}

struct ParsedJournal {
  JournalContents contents;
  bool has_header = false;
  std::string last_boot_tag;
  std::size_t valid_size = 0;  ///< bytes up to the end of the last intact record
};

// Whether `tail` (everything after the last intact record) can be what a power loss leaves of one
// more append: zero bytes (the file grew before its data reached the disk), or the beginning of
// the record that was being written — the header when there is none yet, else a record, which
// starts with a kernel path (or an external control's "scheme:" path) and holds only printable
// characters and tabs (the format escapes everything else). Anything else is not a torn append: the file is damaged or
// not a journal.
bool torn_append(std::string_view tail, bool has_header) {
  while (!tail.empty() && (tail.back() == '\0' || tail.back() == '\n')) tail.remove_suffix(1);
  if (tail.empty()) return true;
  const bool printable = std::all_of(tail.begin(), tail.end(),
                                     [](char c) { return c == '\t' || std::isprint(static_cast<unsigned char>(c)); });
  if (!printable) return false;
  // The beginning of a record whose first field is `tag`.
  const auto starts_record = [&](std::string_view tag) {
    return tag.starts_with(tail.substr(0, tag.size())) && (tail.size() <= tag.size() || tail[tag.size()] == '\t');
  };
  if (!has_header) return starts_record(kMagic) || starts_record(kMagicVersion1);
  if (tail.front() == '/' || starts_record(kBootTag)) return true;
  // Or the path of a control another library owns ("nvml:..."; sysfs/external_attribute.h).
  std::size_t scheme = 0;
  while (scheme < tail.size() && (std::isalnum(static_cast<unsigned char>(tail[scheme])) || tail[scheme] == '_'))
    ++scheme;
  return scheme > 0 && (scheme == tail.size() || tail[scheme] == ':');
}

ParsedJournal parse_journal(const std::string& content, const fs::path& file) {
  ParsedJournal parsed;
  size_t position = 0;
  int line_number = 0;
  const auto refuse_tail = [&](std::string_view tail) {
    std::string shown = escape(tail.substr(0, 120));
    throw FormatError(
        file.string(), static_cast<std::size_t>(line_number), shown,
        parsed.has_header
            ? "an intact journal record, or the start of one cut short by a crash (the file "
              "is damaged; it is kept: restore the remaining values by hand or from a snapshot)"
            : "a jetchar change journal (its header line '" + std::string(kMagic) + " ...'); the file is kept");
  };
  while (position < content.size()) {
    const size_t end = content.find('\n', position);
    ++line_number;
    if (end == std::string::npos) {  // no newline: an append cut short, if it looks like one
      const std::string_view tail(content.data() + position, content.size() - position);
      if (!torn_append(tail, parsed.has_header)) refuse_tail(tail);
      parsed.contents.torn_tail = true;
      break;
    }
    const std::string_view line(content.data() + position, end - position);
    const auto record = parse_record(line);
    if (!record) {
      // An append is one write(2) that ends in its newline: a crash can cut it short, but a whole
      // line whose checksum fails was changed after it was written. That is damage, wherever it is.
      throw FormatError(file.string(), static_cast<std::size_t>(line_number), escape(line.substr(0, 120)),
                        "an intact journal record (its checksum fails: the file is damaged; it is kept)");
    }
    if (!parsed.has_header) {
      if (record->first != kMagic && record->first != kMagicVersion1) {
        throw FormatError(file.string(), std::string(line.substr(0, 120)),
                          "a jetchar change journal header (version 1 or 2)");
      }
      parsed.has_header = true;
      parsed.contents.root_prefix = record->second;
    } else if (record->first == kBootTag) {
      parsed.last_boot_tag = record->second;
    } else {
      parsed.contents.entries.push_back(JournalEntry{record->first, record->second, parsed.last_boot_tag});
    }
    position = end + 1;
    parsed.valid_size = position;
  }
  return parsed;
}

// A control another library owns (sysfs/external_attribute.h): written through it, read back
// where it can report the value.
bool write_external(const std::string& path, const std::string& value, std::string& failure) {
  try {
    const ExternalAttributeHandler& handler = external_attribute_handler(path);
    handler.write(path, value);
    if (handler.readable_back && !handler.readable_back(path)) return true;
    const std::string back = handler.read(path);
    if (trim_value(back) != trim_value(value)) {
      failure = fmt::format("{}: wrote '{}' but it reads back '{}'", path, escape(trim_value(value)),
                            escape(trim_value(back)));
      return false;
    }
  } catch (const std::exception& e) {
    failure = e.what();
    return false;
  }
  return true;
}

// An entry of a control its owner resets at boot, recorded in another boot than `current_boot`: the
// reboot undid it. Untagged entries and an unknown current boot keep the entry (it is restored).
bool reset_since_recorded(const JournalEntry& entry, const std::string& current_boot) {
  if (entry.boot_id.empty() || current_boot.empty() || entry.boot_id == current_boot) return false;
  if (!is_external_attribute(entry.path)) return false;
  try {
    return external_attribute_handler(entry.path).reset_at_boot;
  } catch (const std::runtime_error&) {
    return false;  // nobody owns it in this process: restoring reports that
  }
}

bool write_raw(const Root& root, const std::string& path, const std::string& value, std::string& failure) {
  if (is_external_attribute(path)) return write_external(path, value, failure);
  const fs::path resolved = root.resolve(path);
  UniqueFd fd(::open(resolved.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd) {
    failure = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
    return false;
  }
  ssize_t written;
  do {
    written = ::write(fd.get(), value.data(), value.size());
  } while (written < 0 && errno == EINTR);
  const int error = written < 0 ? errno : 0;
  fd.close();
  if (error != 0 || static_cast<size_t>(written) != value.size()) {
    failure =
        fmt::format("{}: cannot write '{}': {}", path, escape(trim_value(value)), std::strerror(error ? error : EIO));
    return false;
  }
  try {
    const std::string back = read_attribute_raw(root, path);
    if (trim_value(back) != trim_value(value)) {
      failure = fmt::format("{}: wrote '{}' but it reads back '{}'", path, escape(trim_value(value)),
                            escape(trim_value(back)));
      return false;
    }
  } catch (const IoError& e) {
    failure = e.what();
    return false;
  }
  return true;
}

}  // namespace

RestoreIncomplete::RestoreIncomplete(const fs::path& journal, std::vector<std::string> failures)
    : std::runtime_error(fmt::format("restore incomplete ({} of the journalled attributes did not come back; journal "
                                     "{} kept): {}",
                                     failures.size(), journal.string(), fmt::join(failures, "; "))),
      failures_(std::move(failures)) {}

fs::path journal_file(const fs::path& state_dir) { return state_dir / "change-journal"; }

fs::path snapshot_file(const fs::path& state_dir) { return state_dir / "change-journal.snapshot"; }

std::string read_raw_attribute(const Root& root, std::string_view path) {
  if (is_external_attribute(path)) return external_attribute_handler(path).read(std::string(path));
  return read_attribute_raw(root, root.canonical(path));
}

std::string journal_text(const fs::path& root_prefix, const std::vector<JournalEntry>& entries) {
  std::string content = record_line(kMagic, root_prefix.string());
  std::string tagged;
  for (const auto& entry : entries) {
    // The boot an entry was read in, as the journal tags it: a control reset at boot is not
    // written back from before a reboot.
    if (!entry.boot_id.empty() && entry.boot_id != tagged) {
      content += record_line(kBootTag, entry.boot_id);
      tagged = entry.boot_id;
    }
    content += record_line(entry.path, entry.original);
  }
  return content;
}

void write_journal_file(const fs::path& file, const fs::path& root_prefix, const std::vector<JournalEntry>& entries) {
  // Whole or absent (sysfs/output_file.h): a kill while it is written leaves no part of it.
  write_output_file(file, journal_text(root_prefix, entries));
}

JournalContents read_journal(const fs::path& file) { return parse_journal(read_whole_file(file), file).contents; }

JournalContents parse_journal_text(const std::string& content, const fs::path& file) {
  return parse_journal(content, file).contents;
}

std::optional<JournalContents> find_pending_journal(const fs::path& state_dir) {
  const fs::path file = journal_file(state_dir);
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return std::nullopt;  // a live process owns it: not pending
  auto parsed = parse_journal(read_to_end(fd.get(), file.string()), file);
  if (parsed.contents.entries.empty()) return std::nullopt;
  return std::move(parsed.contents);
}

std::size_t restore_entries(const Root& root, const std::vector<JournalEntry>& entries, const fs::path& journal,
                            std::vector<std::string>* reset_by_reboot) {
  const std::string current_boot = boot_id(root);
  std::vector<const JournalEntry*> pending;
  std::size_t dropped = 0;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (reset_since_recorded(*it, current_boot)) {
      ++dropped;
      if (reset_by_reboot != nullptr) reset_by_reboot->push_back(it->path);
    } else {
      pending.push_back(&*it);
    }
  }
  std::vector<std::string> failures;
  // Later passes retry values the kernel refused while another attribute was not back yet
  // (a cpufreq limit of an offline core, a min above the current max).
  for (int pass = 0; pass < 3 && !pending.empty(); ++pass) {
    std::vector<const JournalEntry*> retry;
    failures.clear();
    for (const JournalEntry* entry : pending) {
      std::string failure;
      if (!write_raw(root, entry->path, entry->original, failure)) {
        retry.push_back(entry);
        failures.push_back(std::move(failure));
      }
    }
    pending = std::move(retry);
  }
  if (!pending.empty()) throw RestoreIncomplete(journal, std::move(failures));
  return entries.size() - dropped;
}

std::vector<std::string> restore_differences(const Root& root, const std::vector<JournalEntry>& snapshot,
                                             const fs::path& snapshot_for_messages) {
  std::vector<JournalEntry> differing;
  for (const JournalEntry& entry : snapshot) {
    std::string now;
    try {
      now = read_raw_attribute(root, entry.path);
    } catch (const std::exception&) {
      now.clear();  // unreadable now: written back, and its read-back says whether it came back
    }
    if (now != entry.original) differing.push_back(entry);
  }
  std::vector<std::string> reset_by_reboot;
  restore_entries(root, differing, snapshot_for_messages, &reset_by_reboot);
  std::vector<std::string> paths;
  for (const auto& entry : differing) {
    if (std::find(reset_by_reboot.begin(), reset_by_reboot.end(), entry.path) == reset_by_reboot.end())
      paths.push_back(entry.path);
  }
  return paths;
}

DamagedJournalRestore restore_from_snapshot(const Root& root, const fs::path& state_dir) {
  const fs::path journal = journal_file(state_dir);
  const fs::path snapshot = snapshot_file(state_dir);
  // Whoever holds the journal's lock is controlling the board now: nothing to restore under it.
  const UniqueFd fd(::open(journal.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    throw std::runtime_error(fmt::format(
        "another jetchar process is controlling this board (its change journal {} is locked); wait for it to end",
        journal.string()));
  }
  if (!fs::exists(snapshot)) {
    throw std::runtime_error(fmt::format(
        "there is no snapshot of the board from before the session ({} is absent): the journal is kept; bring the "
        "controls back by hand, or with `jetchar device restore FILE` from a snapshot of your own",
        snapshot.string()));
  }
  const JournalContents contents = read_journal(snapshot);
  if (contents.root_prefix != root.prefix()) {
    throw std::runtime_error(fmt::format("the snapshot {} was taken of the board under '{}', not '{}'",
                                         snapshot.string(), contents.root_prefix.string(), root.prefix().string()));
  }
  DamagedJournalRestore result;
  result.snapshot = snapshot;
  result.controls = contents.entries.size();
  result.rewritten = restore_differences(root, contents.entries, snapshot);
  // Every control reads back as before the session: the damaged journal is kept for inspection
  // under another name (an earlier one's kept too), so that the next session starts a journal of
  // its own.
  result.kept_journal = state_dir / "change-journal.damaged";
  for (int n = 2; fs::exists(result.kept_journal); ++n)
    result.kept_journal = state_dir / fmt::format("change-journal.damaged.{}", n);
  if (fd && ::rename(journal.c_str(), result.kept_journal.c_str()) != 0) {
    throw IoError(journal.string(), "rename damaged change journal", errno);
  }
  if (::unlink(snapshot.c_str()) != 0 && errno != ENOENT) throw IoError(snapshot.string(), "remove snapshot", errno);
  fsync_directory(state_dir);
  return result;
}

ChangeJournal::ChangeJournal(const Root& root, fs::path state_dir)
    : root_(root), state_dir_(std::move(state_dir)), file_(journal_file(state_dir_)), boot_id_(boot_id(root)) {
  fd_.reset(::open(file_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
  if (!fd_) {
    if (errno != ENOENT) throw IoError(file_.string(), "open change journal", errno);
    return;  // created at the first record()
  }
  // A process that was just SIGKILLed may still be on its way out holding the lock: wait a moment.
  bool locked = false;
  for (int attempt = 0; attempt < 50 && !locked; ++attempt) {
    locked = ::flock(fd_.get(), LOCK_EX | LOCK_NB) == 0;
    if (!locked) ::usleep(20000);
  }
  if (!locked) {
    fd_.close();
    throw std::runtime_error(fmt::format(
        "another jetchar process is controlling this board (its change journal {} is locked); wait for it to end",
        file_.string()));
  }
  // A constructor that throws runs no destructor: fd_ (a member) closes the journal on its own.
  ParsedJournal parsed = parse_journal(read_to_end(fd_.get(), file_.string()), file_);
  if (parsed.has_header && parsed.contents.root_prefix != root_.prefix()) {
    fd_.close();
    throw std::runtime_error(fmt::format(
        "the change journal {} holds changes to the board under '{}', not '{}'; run `jetchar device restore "
        "--state-dir {}` for that board first",
        file_.string(), parsed.contents.root_prefix.string(), root_.prefix().string(), state_dir_.string()));
  }
  entries_ = std::move(parsed.contents.entries);
  tagged_boot_ = std::move(parsed.last_boot_tag);
  continued_pending_ = !entries_.empty();
  if (!parsed.has_header || parsed.contents.torn_tail) {
    // Drop the torn record so that the next one starts on a fresh line.
    if (::ftruncate(fd_.get(), static_cast<off_t>(parsed.has_header ? parsed.valid_size : 0)) != 0 ||
        ::fsync(fd_.get()) != 0) {
      throw IoError(file_.string(), "truncate torn change journal", errno);
    }
    if (!parsed.has_header) append_line(record_line(kMagic, root_.prefix().string()));
  }
}

ChangeJournal::~ChangeJournal() = default;

bool ChangeJournal::recorded(std::string_view path) const {
  const std::string canonical = is_external_attribute(path) ? std::string(path) : root_.canonical(path);
  // An original from an earlier boot of a control reset at boot is no longer this boot's original.
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const JournalEntry& e) { return e.path == canonical && !reset_since_recorded(e, boot_id_); });
}

void ChangeJournal::create_file() {
  create_directories_durably(state_dir_);
  // The controls before this session's first write, whole before the journal exists: a restore
  // reaches this state even when journal records are lost.
  if (snapshot_source_) {
    std::vector<JournalEntry> controls = snapshot_source_();
    for (auto& entry : controls) entry.boot_id = boot_id_;
    write_journal_file(snapshot_file(state_dir_), root_.prefix(), controls);
  }
  fd_.reset(::open(file_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd_) {
    if (errno == EEXIST) {
      throw std::runtime_error(fmt::format(
          "another jetchar process started controlling this board (change journal {} appeared)", file_.string()));
    }
    throw IoError(file_.string(), "create change journal", errno);
  }
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) throw IoError(file_.string(), "lock change journal", errno);
  append_line(record_line(kMagic, root_.prefix().string()));
  tagged_boot_.clear();
  fsync_directory(state_dir_);
}

void ChangeJournal::tag_boot() {
  if (boot_id_.empty() || tagged_boot_ == boot_id_) return;
  append_line(record_line(kBootTag, boot_id_));
  tagged_boot_ = boot_id_;
}

void ChangeJournal::append_line(const std::string& line) {
  // One write(2) of the whole record: with O_APPEND a crash leaves at most this record torn.
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_.get(), line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(file_.string(), "append to change journal", errno);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd_.get()) != 0) throw IoError(file_.string(), "sync change journal", errno);
}

void ChangeJournal::record(std::string_view path) {
  const std::string canonical = is_external_attribute(path) ? std::string(path) : root_.canonical(path);
  if (recorded(canonical)) return;
  JournalEntry entry{canonical, read_raw_attribute(root_, canonical), boot_id_};
  if (!fd_) create_file();
  tag_boot();
  append_line(record_line(entry.path, entry.original));
  entries_.push_back(std::move(entry));
}

void ChangeJournal::write(std::string_view path, std::string_view value, Verify verify) {
  record(path);
  try {
    if (is_external_attribute(path)) {
      std::string failure;
      if (!write_external(std::string(path), std::string(value), failure)) throw std::runtime_error(failure);
    } else {
      write_string(root_, path, value, verify);
    }
  } catch (...) {
    ++writes_;
    if (after_write_hook_ != nullptr) after_write_hook_(writes_);
    throw;
  }
  ++writes_;
  if (after_write_hook_ != nullptr) after_write_hook_(writes_);
}

std::size_t ChangeJournal::restore() {
  reset_by_reboot_.clear();
  repaired_from_snapshot_.clear();
  const std::size_t count = restore_entries(root_, entries_, file_, &reset_by_reboot_);
  // The board read back against the snapshot of the session's start: a control the journal did
  // not bring back (a lost record, a change made beside jetchar) is written back from it.
  const fs::path snapshot = snapshot_file(state_dir_);
  if (fd_ && fs::exists(snapshot)) {
    const JournalContents before = read_journal(snapshot);
    if (before.root_prefix == root_.prefix())
      repaired_from_snapshot_ = restore_differences(root_, before.entries, snapshot);
  }
  if (fd_) {
    if (::unlink(file_.c_str()) != 0 && errno != ENOENT) throw IoError(file_.string(), "remove change journal", errno);
    if (::unlink(snapshot.c_str()) != 0 && errno != ENOENT) throw IoError(snapshot.string(), "remove snapshot", errno);
    fsync_directory(state_dir_);
    fd_.close();
  }
  entries_.clear();
  continued_pending_ = false;
  return count;
}

}  // namespace jetchar::sysfs
