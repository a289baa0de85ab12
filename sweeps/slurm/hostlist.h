// Slurm's hostlist syntax, as SLURM_JOB_NODELIST, SLURM_STEP_NODELIST, squeue and sacct print a
// set of nodes and `scontrol show hostnames` expands it (src/common/hostlist.c of Slurm 22.05):
// names separated by ',' (or blanks), each a name or a name with bracketed ranges:
// "b[1-3],c5" is b1 b2 b3 c5. A bracket holds ranges separated by ',', each N or N-M (N <= M);
// a range keeps the width of its lower bound with leading zeros ("n[08-10]" is n08 n09 n10,
// "n[8-10]" is n8 n9 n10). A name may hold several bracket groups, expanded leftmost first
// ("r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2). Order and repeats are kept, as Slurm keeps them.
// Slurm reads some broken lists leniently (`scontrol show hostnames 'b[1-'` prints b1, 'b[1-3'
// prints "b]"); those are refused here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sweeps {

/// At most this many names in one hostlist (Slurm's own limit of a range, MAX_RANGE).
inline constexpr std::size_t kMaxHostlistHosts = 64 * 1024;

/// The names of a hostlist, in order. Throws std::invalid_argument naming the hostlist and what
/// is wrong: no name at all, an unclosed or stray bracket, an empty bracket, a range that is not
/// N or N-M with digits and N <= M, more than `max_hosts` names.
std::vector<std::string> expand_hostlist(std::string_view hostlist, std::size_t max_hosts = kMaxHostlistHosts);

}  // namespace jetchar::sweeps
