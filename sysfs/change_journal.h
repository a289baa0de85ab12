// The change journal: what every control write changed, kept so that the board can be brought
// back exactly — at normal exit, on SIGINT/SIGTERM, and after a SIGKILL or a power loss by the
// next `jetchar device restore`.
//
// Before the first write to an attribute, its original content (raw bytes, trailing newline
// included) is appended to a journal file in a state directory and fsync'd, together with the
// directory when the file is created. Only then is the attribute written. Restore writes the
// originals back in reverse order and removes the journal only after every one of them reads back
// as it was; a partial restore keeps the journal so that it can be run again.
//
// File format, one record per line, each line ending in a checksum so that a record torn by a
// power loss mid-append (a short last line without its newline, or a tail of zero bytes) is
// recognised and dropped — it stands for a write that had not started, because the write only
// follows a complete fsync. A whole line whose checksum fails is damage (FormatError), never
// dropped:
//   jetchar-change-journal 2<TAB><root prefix><TAB><fnv1a32 hex>
//   @boot<TAB><boot id><TAB><fnv1a32 hex>
//   <kernel path><TAB><escaped original><TAB><fnv1a32 hex>
// Escapes: \\ \t \n \r and \xHH for other non-printable bytes. A "@boot" record says that the
// records after it were written in that boot (sysfs/boot_id.h); one is appended whenever a process
// records in a boot other than the last one tagged. Version 1 files have no such records and are
// still read (their entries are untagged).
//
// Beside the journal, a session's snapshot of every control before its first write
// (snapshot_file, the same format) lets a restore reach that state even when the journal is
// damaged or cut short.
//
// Controls that are not kernel files (NVML's power limit and locked clocks) are journalled the same
// way under a "scheme:" path whose library registered a reader and writer (sysfs/external_attribute.h).
// Those that their owner resets at boot are dropped at restore when they were recorded in an earlier
// boot: the reboot has already undone them, and writing the old original back would change the
// board again.
//
// The journal file is flock()ed while a process uses it, which tells a journal left by a dead
// process (pending: restore it) from one in use by a live process (refuse to interfere).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/attribute.h"
#include "sysfs/root.h"
#include "sysfs/unique_fd.h"

namespace jetchar::sysfs {

struct JournalEntry {
  std::string path;          ///< canonical kernel path (symlinks resolved inside the root)
  std::string original;      ///< raw content before the first write
  std::string boot_id = {};  ///< the boot it was recorded in; empty when untagged (version 1, no boot id)
};

/// What a journal file holds, as read back from disk.
struct JournalContents {
  std::filesystem::path root_prefix;
  std::vector<JournalEntry> entries;
  bool torn_tail = false;  ///< the last record was incomplete and was dropped
};

/// Restore wrote back what it could but some attributes do not read back as they were; the
/// journal is kept.
class RestoreIncomplete : public std::runtime_error {
 public:
  RestoreIncomplete(const std::filesystem::path& journal, std::vector<std::string> failures);
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  std::vector<std::string> failures_;
};

/// Journal file name inside a state directory.
std::filesystem::path journal_file(const std::filesystem::path& state_dir);

/// Reads a journal file. Throws IoError when it cannot be read, FormatError when it is damaged: a
/// whole record whose checksum fails (wherever it is), or a last line that is not the start of a
/// record cut short (a torn append, which is dropped).
JournalContents read_journal(const std::filesystem::path& file);
/// read_journal of text already in memory; `file` names it in errors.
JournalContents parse_journal_text(const std::string& content, const std::filesystem::path& file);

/// `entries` in the journal's format, as write_journal_file writes them.
std::string journal_text(const std::filesystem::path& root_prefix, const std::vector<JournalEntry>& entries);
/// Writes `entries` as a complete journal-format file (a snapshot of values to restore later):
/// written to a temporary file, fsync'd and renamed over `file`, so that it is whole or absent.
/// Entries with a boot id are preceded by its "@boot" record.
void write_journal_file(const std::filesystem::path& file, const std::filesystem::path& root_prefix,
                        const std::vector<JournalEntry>& entries);

/// Raw content of a kernel attribute (trailing newline included), as the journal keeps it.
std::string read_raw_attribute(const Root& root, std::string_view path);

/// The snapshot of every control a session took before its first write, beside its journal
/// (ChangeJournal::set_snapshot_source); removed with the journal.
std::filesystem::path snapshot_file(const std::filesystem::path& state_dir);

/// Writes back every control of `snapshot` whose value reads otherwise now (restore_entries, so
/// each is verified; a control reset at boot recorded before the last reboot is left alone);
/// returns the paths written. Throws RestoreIncomplete naming what did not come back.
std::vector<std::string> restore_differences(const Root& root, const std::vector<JournalEntry>& snapshot,
                                             const std::filesystem::path& snapshot_for_messages);

/// What restore_from_snapshot did.
struct DamagedJournalRestore {
  std::filesystem::path snapshot;
  std::size_t controls = 0;            ///< controls in the snapshot, all reading back as in it now
  std::vector<std::string> rewritten;  ///< those that differed and were written back
  std::filesystem::path kept_journal;  ///< where the damaged journal is kept
};

/// The board under `root` brought back to the snapshot its session took, for a journal that
/// cannot be read (FormatError: damaged): every control that differs is written back and read
/// back; the damaged journal is then kept as change-journal.damaged (.2, .3 ... when an earlier
/// one is there). Throws std::runtime_error
/// when there is no snapshot or a live process holds the journal, RestoreIncomplete when a
/// control does not come back (the journal stays where it is then).
DamagedJournalRestore restore_from_snapshot(const Root& root, const std::filesystem::path& state_dir);

/// A journal left behind by a process that is gone (the file exists and nobody holds its lock).
std::optional<JournalContents> find_pending_journal(const std::filesystem::path& state_dir);

/// Writes the entries back in reverse order (more passes for attributes that refuse a value until
/// another one is back), each verified by reading back. Returns the number of attributes written.
/// Throws RestoreIncomplete listing what failed. An entry of a control reset at boot that was
/// recorded in an earlier boot than `root`'s current one is not written: its path goes to
/// `reset_by_reboot` (when given).
std::size_t restore_entries(const Root& root, const std::vector<JournalEntry>& entries,
                            const std::filesystem::path& journal_for_messages,
                            std::vector<std::string>* reset_by_reboot = nullptr);

class ChangeJournal {
 public:
  /// Opens the journal of `state_dir` for `root`, creating the directory when needed. An existing
  /// journal left by a dead process is continued (its originals stay the ones to restore); one for
  /// another root, or one locked by a live process, is an error (std::runtime_error).
  ChangeJournal(const Root& root, std::filesystem::path state_dir);
  ~ChangeJournal();
  ChangeJournal(const ChangeJournal&) = delete;
  ChangeJournal& operator=(const ChangeJournal&) = delete;

  const Root& root() const { return root_; }
  const std::filesystem::path& file() const { return file_; }
  /// True when the journal held entries from an earlier process when it was opened.
  bool continued_pending() const { return continued_pending_; }
  bool empty() const { return entries_.empty(); }
  const std::vector<JournalEntry>& entries() const { return entries_; }
  bool recorded(std::string_view path) const;

  /// Appends the original of `path` unless it is already recorded; durable when it returns.
  void record(std::string_view path);
  /// record(path), then the write. The value is written as given.
  void write(std::string_view path, std::string_view value, Verify verify = Verify::kNone);

  /// Writes every original back (reverse order) and removes the journal file once all read back.
  /// Throws RestoreIncomplete (journal kept) otherwise. Returns the number of attributes written.
  std::size_t restore();
  /// The controls the last restore() left alone because a reboot had reset them since they were
  /// recorded (restore_entries).
  const std::vector<std::string>& reset_by_reboot() const { return reset_by_reboot_; }

  /// The controls restore() wrote back from the session's snapshot because they still differed
  /// from it after the journal's originals were back (a journal record lost, or a change made
  /// beside jetchar).
  const std::vector<std::string>& repaired_from_snapshot() const { return repaired_from_snapshot_; }

  /// Before this session's first write (when it creates the journal), `source`'s entries are
  /// written as snapshot_file(): every control the session may touch, as it was.
  void set_snapshot_source(std::function<std::vector<JournalEntry>()> source) { snapshot_source_ = std::move(source); }

  /// Test hook: called after every completed attribute write (journal record + write), with the
  /// count of writes so far. Tests use it to kill the process at each write boundary.
  void set_after_write_hook(void (*hook)(std::size_t writes_so_far)) { after_write_hook_ = hook; }

 private:
  void create_file();
  void append_line(const std::string& line);
  void tag_boot();

  const Root& root_;
  std::filesystem::path state_dir_;
  std::filesystem::path file_;
  UniqueFd fd_;  ///< the open journal, locked (flock) while this object owns the board
  bool continued_pending_ = false;
  std::string boot_id_;      ///< this boot (sysfs/boot_id.h); empty when unknown
  std::string tagged_boot_;  ///< the boot of the file's last "@boot" record
  std::vector<JournalEntry> entries_;
  std::vector<std::string> reset_by_reboot_;
  std::vector<std::string> repaired_from_snapshot_;
  std::function<std::vector<JournalEntry>()> snapshot_source_;
  std::size_t writes_ = 0;
  void (*after_write_hook_)(std::size_t) = nullptr;
};

}  // namespace jetchar::sysfs
