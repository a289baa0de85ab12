# What the Slurm tests share (source it after defining skip and fail): the checks that Slurm can
# run here, node names that resolve, a clean environment, and each board's control tree.

# slurm_test_require PROGRAM...: skips (exit 77) unless this runs as root and every PROGRAM is
# installed.
slurm_test_require() {
  [ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs (run the test as root)"
  local program
  for program in "$@"; do
    command -v "$program" >/dev/null || skip "$program is not installed (Debian: slurm-wlm munge iproute2 python3)"
  done
}

# slurm_test_resolve_nodes SELF ARGS...: node 0's address is its node name, which must resolve as a
# cluster's DNS would resolve it. Where the names in NODES do not, runs SELF again in a mount
# namespace of its own whose /etc/hosts maps them to 127.0.0.1 (and does not return); where no such
# namespace can be made, returns 1 and the caller gives the address itself.
slurm_test_resolve_nodes() {
  local node resolve=0
  for node in "${NODES[@]}"; do getent hosts "$node" >/dev/null || resolve=1; done
  ((resolve)) || return 0
  if [ -n "${JETCHAR_SLURM_TEST_HOSTS:-}" ]; then fail "${NODES[*]} do not resolve with the test's own /etc/hosts"; fi
  local hosts
  hosts=$(mktemp /tmp/jetchar-slurm-hosts.XXXXXX)
  { cat /etc/hosts; echo "127.0.0.1 ${NODES[*]}"; } >"$hosts"
  if unshare --mount --propagation private sh -c 'mount --bind "$1" /etc/hosts' sh "$hosts" 2>/dev/null; then
    # Again, in a mount namespace whose /etc/hosts names the nodes (the file goes once mounted).
    export JETCHAR_SLURM_TEST_HOSTS=$hosts
    exec unshare --mount --propagation private bash -c \
      'mount --bind "$JETCHAR_SLURM_TEST_HOSTS" /etc/hosts && rm -f "$JETCHAR_SLURM_TEST_HOSTS" && exec bash "$@"' \
      bash "$@"
  fi
  rm -f "$hosts"
  return 1
}

# slurm_test_directory NAME: the test's directory T (/tmp/NAME.XXXXXX) and its cluster
# (slurm_cluster.sh), whose daemons stop whatever ends the test; a failed test keeps T (logs,
# outputs, stores, boards) for a look, as does KEEP_SLURM_TEST=1.
slurm_test_directory() {
  T=$(mktemp -d "/tmp/$1.XXXXXX")
  source "$HERE/slurm_cluster.sh"
  trap slurm_test_finish EXIT
  trap 'exit 1' INT TERM
}
slurm_test_finish() {
  local status=$?
  cluster_stop
  if [ "${KEEP_SLURM_TEST:-0}" = 1 ] || { [ "$status" != 0 ] && [ "$status" != 77 ]; }; then echo "kept $T"; else rm -rf "$T"; fi
}

# slurm_test_first_job: sets first_job, the cluster's first job id (CLUSTER_CONF_EXTRA=(FirstJobId=...)),
# so that the rendezvous port jetchar derives from it under srun (29500 + id % 3000,
# sweeps/slurm/step_world.h) is held by no socket in any state now; the port is below the
# ephemeral range, so the step's own srun sockets cannot take it later.
slurm_test_first_job() {
  first_job=$((1 + RANDOM % 2999))
  while ss -Htan "sport = :$((29500 + first_job))" 2>/dev/null | grep -q .; do
    first_job=$((first_job % 2999 + 1))
  done
  CLUSTER_CONF_EXTRA=("FirstJobId=$first_job")
}

# Nothing of a Slurm the test may run under reaches the cluster or what the test runs by hand.
slurm_test_clean_environment() {
  local variable
  for variable in $(compgen -e | grep '^SLURM'); do unset "$variable"; done
}

# The control tree of a board: every file and link but the sensors the model recomputes (CPU time
# in /proc/stat and the state it shares among them) and jetchar's own state (its change journal).
tree_digest() {
  (cd "$1" && find . \( -path ./var/lib/jetchar -o -name 'hwmon*' -o -name 'iio:device*' -o -name 'thermal_zone*' \
       -o -path ./proc/stat -o -name .jetchar-simulated-cpu.json \) -prune \
       -o \( -type f -o -type l \) -print | LC_ALL=C sort | while read -r f; do
     if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else echo "$f $(sha256sum <"$f" | cut -c1-64)"; fi
   done)
}

# Fails unless every node's board (under $T/boards/NODE) is back as $T/NODE.before recorded it.
expect_boards_restored() {
  local node
  for node in "${NODES[@]}"; do
    tree_digest "$T/boards/$node" >"$T/$node.after"
    diff "$T/$node.before" "$T/$node.after" >"$T/$node.diff" || fail "board of $node not restored: $(head -20 "$T/$node.diff")"
  done
  echo "every board restored byte for byte"
}
