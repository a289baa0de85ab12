// Board fixtures: a compact, reviewable text manifest per board (tests/fixtures/boards/<name>/
// board.manifest, format in tests/fixtures/boards/README.md) that expands into a directory tree
// laid out like the board's /sys, /proc and /etc. Tests and the simulated board (`--board
// sim:<name>`) both expand fixtures, so the expander lives in the library.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/simulated/owned_temp_dir.h"

namespace jetchar::jetson {

/// One directive of a manifest, after `include` and `repeat` have been expanded.
struct FixtureEntry {
  enum class Kind { kFile, kLink, kDir, kCopy, kRemove, kMode, kFailRead, kFailWrite };
  Kind kind = Kind::kFile;
  /// Absolute kernel path ("/sys/class/devfreq/17000000.gpu").
  std::string path;
  /// kFile: the bytes to write; kLink: the link target as the kernel shows it; kMode: the
  /// permission bits in octal ("0400"); kFailRead/kFailWrite: the errno name ("EBUSY").
  std::string content;
  /// kCopy: the host file to copy, resolved relative to the manifest that named it.
  std::filesystem::path copy_from;
  /// "<manifest>:<line>", for error messages.
  std::string origin;
};

class FixtureManifest {
 public:
  /// Reads and parses a manifest file; `include` and `copy` resolve relative to its folder.
  /// Throws sysfs::IoError (unreadable file) or sysfs::FormatError ("<file>:<line>", the line,
  /// what is valid).
  static FixtureManifest load(const std::filesystem::path& manifest_file);
  /// Parses manifest text; `base_dir` anchors `include`/`copy`, `source` names it in errors.
  static FixtureManifest parse(std::string_view text, const std::filesystem::path& base_dir, std::string_view source);

  const std::vector<FixtureEntry>& entries() const { return entries_; }

  /// Creates the tree under `root_dir` (an existing directory). Symlinks in the tree are
  /// followed inside `root_dir` only, so an absolute link such as /proc/device-tree ->
  /// /sys/firmware/devicetree/base never reaches the host's own /sys.
  void expand(const std::filesystem::path& root_dir) const;

 private:
  std::vector<FixtureEntry> entries_;
};

/// The folder holding the fixtures: $JETCHAR_FIXTURES_DIR, else tests/fixtures/boards under the
/// working directory, else share/jetchar/boards beside an installed jetchar's bin/, else under the
/// source tree jetchar was built from. Empty when none exists.
std::filesystem::path board_fixtures_dir();
/// Names of the fixtures in board_fixtures_dir() (folders with a board.manifest), sorted.
std::vector<std::string> list_board_fixtures();
/// The name a manifest goes by: its folder's name for a `board.manifest` ("agx-orin-r36"), else
/// the file's stem ("my-board" for my-board.manifest, as `device capture -o` writes it).
std::string board_fixture_name(const std::filesystem::path& manifest_file);
/// The manifest for a fixture name ("agx-orin-r36") or a path to a manifest file or to a folder
/// with a board.manifest. Throws std::invalid_argument listing the known names.
std::filesystem::path find_board_fixture(std::string_view name_or_path);

/// Removes an expanded tree. Folders get their owner's write permission back first: a captured
/// board keeps read-only folders (/sys is 0555), which would stop a non-root remove_all half-way.
void remove_board_tree(const std::filesystem::path& root_dir) noexcept;

/// A fixture expanded into a fresh temporary directory that is removed on destruction (or, when
/// its process is killed, by the next one: owned_temp_dir.h).
class ExpandedFixture {
 public:
  explicit ExpandedFixture(std::string_view name_or_path);

  /// The temporary directory that plays the board's "/".
  const std::filesystem::path& root_dir() const { return dir_.path(); }
  /// The fixture's name (folder name of its manifest).
  const std::string& name() const { return name_; }
  const std::filesystem::path& manifest_file() const { return manifest_file_; }

 private:
  OwnedTempDir dir_;
  std::filesystem::path manifest_file_;
  std::string name_;
};

}  // namespace jetchar::jetson
