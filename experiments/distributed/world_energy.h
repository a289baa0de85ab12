// The energy of a data-parallel run across several nodes, summed over every board. Each node's
// first rank measures its own board over its own epoch windows; the epochs of the nodes cover the
// same training steps, because every rank synchronises with every other at each step (the
// gradients' all-reduce), so an epoch's energy in the world is the sum of the nodes' energies for
// that epoch. Node 0's record is the run: its epochs hold that sum and distributed.node_energy each
// node's own figures. A node that measured no energy for an epoch makes the world's energy of that
// epoch absent, with a note naming the node: a sum over fewer boards than the world's is not the
// world's energy.
#pragma once

#include <string>
#include <vector>

#include "proto/run_result.pb.h"

namespace jetchar::experiments::distributed {

/// A node's own energy per epoch, from its record after training (its context.energy_source and
/// hostname; `board` as the node opened it).
std::vector<proto::NodeEpochEnergy> node_epoch_energy(const proto::RunResult& record, int node_rank,
                                                      const std::string& board);

/// Node 0's record with every node's figures (`nodes`, one report per node, node 0's included):
/// each epoch's energy_j, incremental_energy_j, average_power_w and the rails every board has
/// become sums over the boards, energy_per_sample_j the sum over the epoch's samples (the world's),
/// context.energy_source "sum over N boards of ..."; distributed.node_energy keeps every node's.
/// An epoch without some node's energy loses its energy figures and the record says which node;
/// a node without power sensors leaves context.energy_source empty.
void sum_world_energy(const std::vector<proto::NodeReport>& nodes, proto::RunResult& record);

}  // namespace jetchar::experiments::distributed
