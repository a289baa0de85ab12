#include "experiments/distributed/world_energy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace jetchar::experiments::distributed {
namespace {

void add_note(proto::RunResult& record, const std::string& note) {
  record.set_reason(record.reason().empty() ? note : record.reason() + "; " + note);
}

const proto::NodeEpochEnergy* epoch_of(const proto::NodeReport& node, std::uint32_t epoch) {
  const auto& epochs = node.epochs();
  const auto found = std::find_if(epochs.begin(), epochs.end(),
                                  [epoch](const proto::NodeEpochEnergy& e) { return e.epoch() == epoch; });
  return found == epochs.end() ? nullptr : &*found;
}

// A node's energy source: its epochs' (one record, one source); empty without power sensors.
std::string source_of(const proto::NodeReport& node) {
  return node.epochs().empty() ? std::string() : node.epochs(0).energy_source();
}

std::string describe_node(const proto::NodeReport& node) {
  if (node.epochs().empty()) return fmt::format("node {}", node.node_rank());
  const auto& e = node.epochs(0);
  return fmt::format("node {} ({}{})", node.node_rank(), e.board(), e.hostname().empty() ? "" : " on " + e.hostname());
}

void clear_energy(proto::EpochResult& epoch) {
  epoch.clear_energy_j();
  epoch.clear_incremental_energy_j();
  epoch.clear_energy_per_sample_j();
  epoch.clear_average_power_w();
  epoch.clear_rails();
}

// The rails every board has for the epoch, summed by name (in node 0's order).
void sum_rails(const std::vector<const proto::NodeEpochEnergy*>& figures, proto::EpochResult& epoch) {
  epoch.clear_rails();
  for (const auto& rail : figures.front()->rails()) {
    double energy_j = 0, power_w = 0;
    bool everywhere = true;
    for (const auto* node : figures) {
      const auto& rails = node->rails();
      const auto same =
          std::find_if(rails.begin(), rails.end(), [&](const proto::RailEnergy& r) { return r.rail() == rail.rail(); });
      if (same == rails.end()) {
        everywhere = false;
        break;
      }
      energy_j += same->energy_j();
      power_w += same->average_power_w();
    }
    if (!everywhere) continue;
    auto* r = epoch.add_rails();
    r->set_rail(rail.rail());
    r->set_energy_j(energy_j);
    r->set_average_power_w(power_w);
  }
}

// "sum over 3 boards of board input VDD_IN", or each node's source where they differ.
std::string summed_source(const std::vector<proto::NodeReport>& nodes) {
  std::vector<std::string> sources;
  for (const auto& node : nodes) sources.push_back(source_of(node));
  if (std::all_of(sources.begin(), sources.end(), [&](const std::string& s) { return s == sources.front(); }))
    return fmt::format("sum over {} boards of {}", nodes.size(), sources.front());
  std::vector<std::string> each;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    each.push_back(fmt::format("{} (node {})", sources[i], nodes[i].node_rank()));
  return fmt::format("sum over {} boards: {}", nodes.size(), fmt::join(each, ", "));
}

}  // namespace

std::vector<proto::NodeEpochEnergy> node_epoch_energy(const proto::RunResult& record, int node_rank,
                                                      const std::string& board) {
  std::vector<proto::NodeEpochEnergy> figures;
  for (const auto& epoch : record.epochs()) {
    proto::NodeEpochEnergy& e = figures.emplace_back();
    e.set_node_rank(static_cast<std::uint32_t>(node_rank));
    e.set_epoch(epoch.epoch());
    if (epoch.has_energy_j()) e.set_energy_j(epoch.energy_j());
    if (epoch.has_incremental_energy_j()) e.set_incremental_energy_j(epoch.incremental_energy_j());
    if (epoch.has_average_power_w()) e.set_average_power_w(epoch.average_power_w());
    *e.mutable_rails() = epoch.rails();
    e.set_energy_source(record.context().energy_source());
    e.set_board(board);
    e.set_hostname(record.context().hostname());
  }
  return figures;
}

void sum_world_energy(const std::vector<proto::NodeReport>& nodes, proto::RunResult& record) {
  auto* outcome = record.mutable_distributed();
  outcome->clear_node_energy();
  for (const auto& node : nodes) {
    for (const auto& epoch : node.epochs()) *outcome->add_node_energy() = epoch;
  }
  std::vector<std::string> unpowered;
  for (const auto& node : nodes) {
    if (source_of(node).empty()) unpowered.push_back(describe_node(node));
  }
  if (!unpowered.empty()) {
    for (auto& epoch : *record.mutable_epochs()) clear_energy(epoch);
    record.mutable_context()->clear_energy_source();
    add_note(record, fmt::format("the world's energy is absent: {} measure{} no power (a sum over the other boards "
                                 "would not be the world's)",
                                 fmt::join(unpowered, ", "), unpowered.size() == 1 ? "s" : ""));
    return;
  }
  std::map<std::uint32_t, std::set<std::uint32_t>> missing;              // node -> epochs without energy
  std::map<std::uint32_t, std::set<std::uint32_t>> missing_incremental;  // node -> epochs without it
  for (auto& epoch : *record.mutable_epochs()) {
    std::vector<const proto::NodeEpochEnergy*> figures;
    bool complete = true, incremental = true, any_incremental = false, power = true;
    std::vector<std::uint32_t> without_baseload;
    for (const auto& node : nodes) {
      const auto* figure = epoch_of(node, epoch.epoch());
      if (figure == nullptr || !figure->has_energy_j()) {
        missing[node.node_rank()].insert(epoch.epoch());
        complete = false;
        continue;
      }
      if (figure->has_incremental_energy_j()) {
        any_incremental = true;
      } else {
        without_baseload.push_back(node.node_rank());
        incremental = false;
      }
      power = power && figure->has_average_power_w();
      figures.push_back(figure);
    }
    if (!complete) {
      clear_energy(epoch);
      continue;
    }
    // Without a baseload on any board (none measured) the absence needs no note; on some only,
    // the sum would leave some boards' idle power in, so it is absent and said so.
    if (any_incremental) {
      for (const auto node : without_baseload) missing_incremental[node].insert(epoch.epoch());
    }
    double energy_j = 0, incremental_j = 0, power_w = 0;
    for (const auto* figure : figures) {
      energy_j += figure->energy_j();
      incremental_j += figure->incremental_energy_j();
      power_w += figure->average_power_w();
    }
    epoch.set_energy_j(energy_j);
    if (incremental) {
      epoch.set_incremental_energy_j(incremental_j);
    } else {
      epoch.clear_incremental_energy_j();
    }
    if (power) {
      epoch.set_average_power_w(power_w);
    } else {
      epoch.clear_average_power_w();
    }
    // The epoch's samples are the world's (every rank's shard), as its energy now is.
    if (epoch.samples() > 0) {
      epoch.set_energy_per_sample_j(energy_j / static_cast<double>(epoch.samples()));
    } else {
      epoch.clear_energy_per_sample_j();
    }
    sum_rails(figures, epoch);
  }
  record.mutable_context()->set_energy_source(summed_source(nodes));
  for (const auto& [node, epochs] : missing) {
    add_note(record, fmt::format("the world's energy of epoch{} {} is absent: node {} measured none for {}",
                                 epochs.size() == 1 ? "" : "s", fmt::join(epochs, ", "), node,
                                 epochs.size() == 1 ? "it" : "them"));
  }
  for (const auto& [node, epochs] : missing_incremental) {
    add_note(record, fmt::format("the world's incremental energy of epoch{} {} is absent: node {} measured no "
                                 "baseload",
                                 epochs.size() == 1 ? "" : "s", fmt::join(epochs, ", "), node));
  }
}

}  // namespace jetchar::experiments::distributed
