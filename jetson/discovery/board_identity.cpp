#include "jetson/discovery/board_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "sysfs/attribute.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

// Module P-numbers -> family and name (the module table of jetson_stats, rbonghi/jetson_stats
// jtop/core/jetson_variables.py, MODULE_NAME_TABLE). Data, not logic: add rows for new modules.
struct ModuleRow {
  std::string_view pnumber;
  std::string_view family;
  std::string_view name;
};
constexpr ModuleRow kModules[] = {
    {"p3448-0000", "Nano", "Jetson Nano 4GB"},
    {"p3448-0002", "Nano", "Jetson Nano 16GB eMMC"},
    {"p3448-0003", "Nano", "Jetson Nano 2GB"},
    {"p3310-1000", "TX2", "Jetson TX2"},
    {"p3489-0888", "TX2", "Jetson TX2 4GB"},
    {"p3489-0000", "TX2", "Jetson TX2i"},
    {"p3636-0001", "TX2 NX", "Jetson TX2 NX"},
    {"p3668-0000", "Xavier NX", "Jetson Xavier NX (Developer Kit)"},
    {"p3668-0001", "Xavier NX", "Jetson Xavier NX"},
    {"p3668-0003", "Xavier NX", "Jetson Xavier NX 16GB"},
    {"p2888-0001", "AGX Xavier", "Jetson AGX Xavier"},
    {"p2888-0003", "AGX Xavier", "Jetson AGX Xavier"},
    {"p2888-0004", "AGX Xavier", "Jetson AGX Xavier 32GB"},
    {"p2888-0005", "AGX Xavier", "Jetson AGX Xavier 64GB"},
    {"p2888-0006", "AGX Xavier", "Jetson AGX Xavier 8GB"},
    {"p2888-0008", "AGX Xavier", "Jetson AGX Xavier Industrial"},
    {"p3701-0000", "AGX Orin", "Jetson AGX Orin"},
    {"p3701-0002", "AGX Orin", "IGX Orin"},
    {"p3701-0004", "AGX Orin", "Jetson AGX Orin 32GB"},
    {"p3701-0005", "AGX Orin", "Jetson AGX Orin 64GB"},
    {"p3701-0008", "AGX Orin", "Jetson AGX Orin Industrial"},
    {"p3767-0000", "Orin NX", "Jetson Orin NX 16GB"},
    {"p3767-0001", "Orin NX", "Jetson Orin NX 8GB"},
    {"p3767-0003", "Orin Nano", "Jetson Orin Nano 8GB"},
    {"p3767-0004", "Orin Nano", "Jetson Orin Nano 4GB"},
    {"p3767-0005", "Orin Nano", "Jetson Orin Nano (Developer Kit)"},
    {"p3834-0008", "AGX Thor", "Jetson AGX Thor (Developer Kit)"},
};

// Marketing-string fragments -> family, most specific first (the fallback when the module
// P-number is unknown).
constexpr std::pair<std::string_view, std::string_view> kModelFamilies[] = {
    {"AGX Orin", "AGX Orin"},   {"Orin Nano", "Orin Nano"},   {"Orin NX", "Orin NX"},
    {"Xavier NX", "Xavier NX"}, {"AGX Xavier", "AGX Xavier"}, {"Jetson-AGX", "AGX Xavier"},
    {"AGX Thor", "AGX Thor"},   {"TX2 NX", "TX2 NX"},         {"TX2", "TX2"},
    {"Nano", "Nano"},
};

// Is text[at..] a P-number "pNNNN-NNNN"?
bool is_pnumber_at(std::string_view text, size_t at) {
  if (at + 10 > text.size() || text[at] != 'p' || text[at + 5] != '-') return false;
  for (size_t i = 1; i < 10; ++i) {
    if (i != 5 && !std::isdigit(static_cast<unsigned char>(text[at + i]))) return false;
  }
  // Not part of a longer number.
  return at + 10 == text.size() || !std::isdigit(static_cast<unsigned char>(text[at + 10]));
}

std::vector<std::string> pnumbers_in(std::string_view text) {
  std::vector<std::string> found;
  for (size_t at = 0; at < text.size(); ++at) {
    const bool boundary = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    if (boundary && is_pnumber_at(text, at)) {
      found.emplace_back(text.substr(at, 10));
      at += 9;
    }
  }
  return found;
}

std::optional<std::string> read_dt_string(const sysfs::Root& root, const std::string& path) {
  if (!root.exists(path)) return std::nullopt;
  const auto strings = sysfs::read_dt_strings(root, path);
  if (strings.empty()) return std::nullopt;
  return strings.front();
}

// "tegra234" from "nvidia,tegra234"; ignores family wildcards such as "nvidia,tegra23x".
std::optional<std::string> soc_of(std::string_view compatible) {
  constexpr std::string_view kPrefix = "nvidia,tegra";
  if (compatible.rfind(kPrefix, 0) != 0) return std::nullopt;
  const std::string_view digits = compatible.substr(kPrefix.size());
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return std::string(compatible.substr(7));
}

std::optional<std::string> l4t_package_version(const sysfs::Root& root) {
  const auto status = sysfs::try_read_string(root, "/var/lib/dpkg/status");
  if (!status) return std::nullopt;
  std::istringstream lines(*status);
  bool in_package = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) in_package = false;
    if (line == "Package: nvidia-l4t-core") in_package = true;
    if (in_package && line.rfind("Version: ", 0) == 0) return line.substr(9);
  }
  return std::nullopt;
}

// The L4T line a kernel release points at (reference §1.1 `uname -r` row); a hint only.
std::optional<std::string> l4t_line_hint(std::string_view kernel) {
  if (kernel.find("tegra") == std::string_view::npos) return std::nullopt;
  if (kernel.rfind("4.9.", 0) == 0) return "R32";
  if (kernel.rfind("5.10.", 0) == 0) return "R35";
  if (kernel.rfind("5.15.", 0) == 0) return "R36";
  if (kernel.rfind("6.", 0) == 0) return "R38 or later";
  return std::nullopt;
}

std::optional<std::string> os_pretty_name(const sysfs::Root& root) {
  const auto text = sysfs::try_read_string(root, "/etc/os-release");
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string value = line.substr(12);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(BoardKind kind) { return kind == BoardKind::kJetson ? "jetson" : "host"; }

DtsFilename parse_dts_filename(std::string_view value, std::string_view source) {
  std::string_view name =
      value.substr(value.find_last_of('/') == std::string_view::npos ? 0 : value.find_last_of('/') + 1);
  if (name.size() > 4 && name.substr(name.size() - 4) == ".dts") name.remove_suffix(4);
  size_t digits = 5;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  if (name.rfind("tegra", 0) != 0 || digits == 5 || digits >= name.size() || name[digits] != '-') {
    std::string shown(value.substr(0, 160));
    for (char& c : shown) {
      if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
    }
    throw sysfs::FormatError(std::string(source), shown,
                             "a device-tree source name like 'tegra234-p3767-0003-p3768-0000-a0.dts'");
  }
  DtsFilename parsed;
  parsed.soc = std::string(name.substr(0, digits));
  // Board parts follow as "pNNNN-NNNN" (module first, carrier second); "p3668-all" names a
  // module family without the variant, so it fills the module slot but gives no P-number.
  std::vector<std::string_view> tokens;
  for (std::string_view rest = name.substr(digits + 1); !rest.empty();) {
    const size_t dash = rest.find('-');
    tokens.push_back(rest.substr(0, dash));
    if (dash == std::string_view::npos) break;
    rest = rest.substr(dash + 1);
  }
  int slot = 0;
  for (size_t i = 0; i + 1 < tokens.size() && slot < 2; ++i) {
    const std::string_view part = tokens[i];
    const bool board = part.size() == 5 && part[0] == 'p' && std::all_of(part.begin() + 1, part.end(), [](char c) {
                         return std::isdigit(static_cast<unsigned char>(c));
                       });
    if (!board) continue;
    const std::string_view variant = tokens[i + 1];
    const bool numbered = variant.size() == 4 && std::all_of(variant.begin(), variant.end(), [](char c) {
                            return std::isdigit(static_cast<unsigned char>(c));
                          });
    if (!numbered && variant != "all") continue;
    if (numbered) {
      (slot == 0 ? parsed.module_pnumber : parsed.carrier_pnumber) = std::string(part) + "-" + std::string(variant);
    }
    ++slot;
    ++i;
  }
  return parsed;
}

std::optional<ModuleName> module_name_for(std::string_view module_pnumber) {
  for (const auto& row : kModules) {
    if (row.pnumber == module_pnumber) return ModuleName{std::string(row.family), std::string(row.name)};
  }
  return std::nullopt;
}

namespace {

// The device tree's folder and the strings that name the board.
void read_device_tree(BoardIdentity& id, const sysfs::Root& root) {
  for (const char* dir : {"/proc/device-tree", "/sys/firmware/devicetree/base"}) {
    if (root.is_directory(dir)) {
      id.device_tree_path = dir;
      break;
    }
  }
  if (id.device_tree_path) {
    const std::string& dt = *id.device_tree_path;
    id.model = read_dt_string(root, dt + "/model");
    if (root.exists(dt + "/compatible")) id.compatible = sysfs::read_dt_strings(root, dt + "/compatible");
    id.dts_filename = read_dt_string(root, dt + "/nvidia,dtsfilename");
    id.serial_number = read_dt_string(root, dt + "/serial-number");
  }
}

// The SoC from the compatible entries or the dts file name, and whether this is a Jetson at all;
// returns the parsed dts file name for the module and carrier numbers.
std::optional<DtsFilename> identify_soc(BoardIdentity& id) {
  for (const auto& entry : id.compatible) {
    if (!id.soc) id.soc = soc_of(entry);
  }
  std::optional<DtsFilename> dts;
  if (id.dts_filename) dts = parse_dts_filename(*id.dts_filename, *id.device_tree_path + "/nvidia,dtsfilename");
  if (!id.soc && dts) id.soc = dts->soc;
  id.kind = (id.soc || dts) ? BoardKind::kJetson : BoardKind::kHost;
  return dts;
}

// Module and carrier numbers: "carrier+module" compatible entries first, then a bare known module
// number, then the dts file name, then nvidia,boardids.
void identify_module(BoardIdentity& id, const sysfs::Root& root, const std::optional<DtsFilename>& dts) {
  for (const auto& entry : id.compatible) {
    const size_t plus = entry.find('+');
    if (plus == std::string::npos) continue;
    const auto carrier = pnumbers_in(std::string_view(entry).substr(0, plus));
    const auto module = pnumbers_in(std::string_view(entry).substr(plus + 1));
    if (!module.empty()) {
      id.module_pnumber = module.front();
      id.module_source = "compatible";
      if (!carrier.empty()) id.carrier_pnumber = carrier.front();
      break;
    }
  }
  for (const auto& entry : id.compatible) {
    if (id.module_pnumber) break;
    for (const auto& number : pnumbers_in(entry)) {
      if (module_name_for(number)) {
        id.module_pnumber = number;
        id.module_source = "compatible";
        break;
      }
    }
  }
  if (!id.module_pnumber && dts && dts->module_pnumber) {
    id.module_pnumber = dts->module_pnumber;
    id.module_source = "nvidia,dtsfilename";
  }
  if (!id.carrier_pnumber && dts && dts->carrier_pnumber) id.carrier_pnumber = dts->carrier_pnumber;
  if (!id.module_pnumber && id.device_tree_path) {
    if (auto ids = read_dt_string(root, *id.device_tree_path + "/nvidia,boardids")) {
      const std::string board = ids->substr(0, ids->find_first_of(" :"));
      if (board.size() == 4) {
        id.module_pnumber = "p" + board;
        id.module_source = "nvidia,boardids";
      }
    }
  }
}

// The family from the module's number, else from the model string, else from the SoC alone.
void identify_family(BoardIdentity& id) {
  if (id.module_pnumber) {
    if (auto known = module_name_for(*id.module_pnumber)) {
      id.family = known->family;
      id.module_name = known->name;
      id.family_source = "module " + *id.module_pnumber;
    }
  }
  if (!id.family && id.kind == BoardKind::kJetson && id.model) {
    for (const auto& [fragment, family] : kModelFamilies) {
      if (id.model->find(fragment) != std::string::npos) {
        id.family = std::string(family);
        id.family_source = "model";
        break;
      }
    }
  }
  if (!id.family && id.kind == BoardKind::kJetson && id.soc) {
    id.family = "unknown " + *id.soc + " board";
    id.family_source = "soc";
  }
}

// Kernel, OS, the L4T release (nv_tegra_release, else the nvidia-l4t-core package) and its JetPack.
void identify_release(BoardIdentity& id, const sysfs::Root& root) {
  id.kernel_release = sysfs::try_read_string(root, "/proc/sys/kernel/osrelease");
  id.os_name = os_pretty_name(root);

  if (root.exists("/etc/nv_tegra_release")) {
    id.l4t = parse_nv_tegra_release(sysfs::read_string(root, "/etc/nv_tegra_release"), "/etc/nv_tegra_release");
    id.l4t_source = "/etc/nv_tegra_release";
  } else if (auto version = l4t_package_version(root)) {
    id.l4t = parse_l4t_package_version(*version, "/var/lib/dpkg/status (nvidia-l4t-core Version)");
    id.l4t_source = "/var/lib/dpkg/status (nvidia-l4t-core)";
  } else if (id.kind == BoardKind::kJetson) {
    const auto hint = id.kernel_release ? l4t_line_hint(*id.kernel_release) : std::nullopt;
    id.l4t_note = hint ? fmt::format("no /etc/nv_tegra_release and no nvidia-l4t-core package; kernel {} suggests {}",
                                     *id.kernel_release, *hint)
                       : "no /etc/nv_tegra_release and no nvidia-l4t-core package";
  } else {
    id.l4t_note = "not a Jetson";
  }
  if (id.l4t) {
    id.jetpack = jetpack_for(*id.l4t);
    if (!id.jetpack) id.l4t_note = fmt::format("L4T {} is not in jetchar's JetPack table", id.l4t->version());
  }
}

}  // namespace

BoardIdentity discover_board_identity(const sysfs::Root& root) {
  BoardIdentity id;
  read_device_tree(id, root);
  const std::optional<DtsFilename> dts = identify_soc(id);
  identify_module(id, root, dts);
  identify_family(id);
  identify_release(id, root);
  return id;
}

}  // namespace jetchar::jetson
