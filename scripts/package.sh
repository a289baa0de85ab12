#!/usr/bin/env bash
# Builds the jetchar .deb and checks it. Usage:
#   scripts/package.sh [native|cross] [--install]
# native  amd64 package from build/release (Depends from dpkg-shlibdeps); the package is checked
#         with `dpkg --dry-run -i` (its Depends are satisfiable here), extracted with dpkg-deb -x,
#         and the extracted /usr/bin/jetchar must run `--version` and `models lenet5` (which loads
#         the packaged module of workload commands).
#         --install (root): `apt-get install --no-download ./jetchar_*.deb` for real, then the
#         installed /usr/bin/jetchar runs --version, the installed units verify, the restore unit
#         is enabled; then the package is purged again and the machine checked to be as before
#         (refused when jetchar is already installed).
# cross   arm64 package from build/cross-aarch64 (JETCHAR_SYSROOT, default: scripts/build-sysroot.sh);
#         Depends are computed from the sysroot's dpkg database (see deb_depends below), every one
#         must be a package of the sysroot, and the extracted binary runs `--version`, `models` (three
#         of them, 6 s; all 29 take about 3 min under QEMU) and `device info --board sim:agx-orin-r36`
#         under qemu-aarch64 with the sysroot.
# Both: contents (binary, its module jetchar-workloads.so, units under /lib/systemd/system,
# examples, board fixtures, /etc/jetchar/sweeps/), Architecture, a libtorch dependency, maintainer
# scripts, no RUNPATH into a host directory, and the packaged jetchar finds the packaged board
# fixtures (`--board sim:NAME`) when started outside the source tree.
# Both build with install prefix /usr, so the installed units run /usr/bin/jetchar.
# The .deb lands in build/packages/. JETCHAR_PACKAGE_BUILD_DIR overrides the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-native}
install=0
[[ ${2:-} == --install ]] && install=1
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

log() { echo "package: $*" >&2; }
fail() { echo "package: FAILED: $*" >&2; exit 1; }

# Depends for cross-built binaries (deb_depends SYSROOT BINARY...): every DT_NEEDED soname is
# looked up in the sysroot's dpkg file lists; the owning package's shlibs file gives the versioned dependency (what
# dpkg-shlibdeps does natively). A library no package owns (NVIDIA's pip-installed LibTorch) is
# reported and left out: it reaches the board with the wheel, found through the RUNPATH.
deb_depends() {
  local sysroot=$1 admin=$1/var/lib/dpkg deps=() so list pkg dep name ver rest
  shift
  [[ -f $admin/status ]] || fail "$sysroot has no dpkg database (var/lib/dpkg/status)"
  for so in $(for binary in "$@"; do readelf -d "$binary"; done | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
    list=$(grep -lxF -e "/usr/lib/aarch64-linux-gnu/$so" -e "/lib/aarch64-linux-gnu/$so" "$admin"/info/*.list |
           head -1 || true)
    if [[ -z $list ]]; then
      log "warning: $so is not from a package of the sysroot (bundled or pip-installed); not in Depends"
      continue
    fi
    pkg=$(basename "$list" .list); pkg=${pkg%%:*}
    dep=""
    for shlibs in "$admin/info/$pkg.shlibs" "$admin/info/$pkg":*.shlibs; do
      [[ -f $shlibs ]] || continue
      while read -r name ver rest; do
        [[ $name == *:* || -z $rest ]] && continue       # skip udeb: lines
        if [[ "$name.so.$ver" == "$so" || "$name-$ver.so" == "$so" ]]; then dep=$rest; break; fi
      done < "$shlibs"
      [[ -n $dep ]] && break
    done
    if [[ $dep != *'('* ]]; then
      # No versioned shlibs entry (libstdc++6 and libgcc-s1 version theirs in symbols files): at
      # least the upstream version built against.
      ver=$(awk -v p="$pkg" '/^Package: /{cur=$2} /^Version: /{if (cur == p) {print $2; exit}}' "$admin/status")
      ver=${ver%-*}
      dep="${dep:-$pkg}${ver:+ (>= $ver)}"
    fi
    deps+=("$dep")
  done
  printf '%s\n' "${deps[@]}" | sort -u | paste -sd, | sed 's/,/, /g'
}

case $mode in
  native)
    scripts/install-deps.sh
    dir=${JETCHAR_PACKAGE_BUILD_DIR:-build/release}
    [[ -f $dir/CMakeCache.txt ]] || cmake --preset release >/dev/null
    cmake -S . -B "$dir" -DCMAKE_INSTALL_PREFIX=/usr -DJETCHAR_SYSTEMD_UNIT_DIR=/lib/systemd/system >/dev/null
    cmake --build "$dir" --target jetchar
    cpack_args=()
    ;;
  cross)
    sysroot=${JETCHAR_SYSROOT:-$(scripts/build-sysroot.sh)}
    export JETCHAR_SYSROOT=$sysroot
    dir=${JETCHAR_PACKAGE_BUILD_DIR:-build/cross-aarch64}
    [[ -f $dir/CMakeCache.txt ]] || cmake --preset cross-aarch64 >/dev/null
    cmake -S . -B "$dir" -DCMAKE_INSTALL_PREFIX=/usr -DJETCHAR_SYSTEMD_UNIT_DIR=/lib/systemd/system >/dev/null
    cmake --build "$dir" --target jetchar
    # The executable and the module of workload commands it loads (LibTorch's dependencies are the module's).
    depends=$(deb_depends "$sysroot" "$dir/cli/jetchar" "$dir/cli/jetchar-workloads.so")
    [[ -n $depends ]] || fail "no Depends computed for $dir/cli/jetchar"
    log "Depends: $depends"
    cpack_args=(-D "CPACK_DEBIAN_PACKAGE_DEPENDS=$depends")
    ;;
  *) fail "unknown mode '$mode' (valid: native, cross)" ;;
esac

out=$PWD/build/packages
mkdir -p "$out"
(cd "$dir" && cpack -G DEB -B "$out" "${cpack_args[@]}" >&2)
arch=$([[ $mode == cross ]] && echo arm64 || dpkg --print-architecture)
deb=$(ls -t "$out"/jetchar_*_"$arch".deb | head -1)
log "built $deb"

# Contents: the binary and its module of workload commands, the units, the examples, the board
# fixtures, the docs, the manual page, the bash completion and the sweeps directory.
contents=$(dpkg-deb -c "$deb")
module=$(awk '{print $NF}' <<<"$contents" | grep -E '^\./usr/lib/(.*/)?jetchar/jetchar-workloads\.so$' | head -1)
[[ -n $module ]] || fail "$deb lacks usr/lib/[<arch>/]jetchar/jetchar-workloads.so"
for path in ./usr/bin/jetchar ./lib/systemd/system/jetchar-sweep@.service \
            ./lib/systemd/system/jetchar-sweep@.timer ./lib/systemd/system/jetchar-restore.service \
            ./usr/share/jetchar/examples/ ./usr/share/jetchar/boards/agx-orin-r36/board.manifest \
            ./usr/share/doc/jetchar/README.md ./usr/share/doc/jetchar/docs/command-line.md \
            ./usr/share/man/man1/jetchar.1 ./usr/share/bash-completion/completions/jetchar ./etc/jetchar/sweeps/; do
  grep -qF " $path" <<<"$contents" || fail "$deb lacks $path"
done
[[ $(dpkg-deb -f "$deb" Architecture) == "$arch" ]] || fail "$deb: Architecture is not $arch"
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libtorch <<<"$depends" || fail "$deb: Depends has no libtorch: '$depends'"
grep -q '/usr/bin/jetchar' < <(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./lib/systemd/system/jetchar-sweep@.service) ||
  fail "$deb: the sweep unit does not run /usr/bin/jetchar"
for script in postinst postrm; do
  dpkg-deb -I "$deb" "$script" | grep -q jetchar-restore.service || fail "$deb: $script does not handle jetchar-restore.service"
done
log "$(du -k "$deb" | cut -f1) kB; Installed-Size $(dpkg-deb -f "$deb" Installed-Size) kB; Depends: $depends"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
# The installed binary and module must not look for libraries in a directory of the build host.
runpath=$(for elf in "$tmp/usr/bin/jetchar" "$tmp/$module"; do readelf -d "$elf"; done |
          sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | paste -sd:)
for entry in ${runpath//:/ }; do
  case $entry in
    "$PWD"*|/work/*|/home/*|/tmp/*|/var/cache/*|/root/*) fail "$deb: RUNPATH $entry is a build-host directory" ;;
  esac
done
log "RUNPATH: ${runpath:-none}"

# `--board sim:NAME` must find the fixtures the package ships, not the source tree it was built
# from: started in / (no tests/fixtures/boards there), an unknown name lists where it looked.
# $1... is how to start the packaged binary (under qemu-aarch64 for the arm64 package).
check_packaged_fixtures() {
  local boards=$1; shift
  (cd / && "$@" device info --board sim:agx-orin-r36) > "$tmp/info.txt" ||
    fail "packaged jetchar: device info --board sim:agx-orin-r36 failed"
  grep -qi orin "$tmp/info.txt" || fail "packaged jetchar: device info does not describe an AGX Orin"
  (cd / && "$@" device info --board sim:no-such-board) > "$tmp/unknown.txt" 2>&1 && fail "sim:no-such-board was accepted"
  grep -qF "in $boards" "$tmp/unknown.txt" ||
    fail "packaged jetchar does not use the packaged fixtures in $boards: $(cat "$tmp/unknown.txt")"
  log "packaged jetchar finds the board fixtures in $boards"
}

if [[ $mode == native ]]; then
  dpkg --dry-run -i "$deb" >/dev/null || fail "$deb does not install here (dpkg --dry-run -i)"
  version=$("$tmp/usr/bin/jetchar" --version)
  # The packaged binary loads its packaged module: LibTorch builds and counts a model.
  "$tmp/usr/bin/jetchar" models lenet5 | grep -q '^lenet5 ' || fail "packaged jetchar models lenet5 failed"
  check_packaged_fixtures "$tmp/usr/share/jetchar/boards" "$tmp/usr/bin/jetchar"
  if [[ $install -eq 1 ]]; then
    [[ $(id -u) -eq 0 ]] || fail "--install needs root"
    if dpkg-query -W -f='${Status}' jetchar 2>/dev/null | grep -q installed; then
      fail "jetchar is already installed here; --install installs and purges a package, it does not replace one"
    fi
    # What the installation may touch, to check that the purge leaves it as it was.
    snapshot() {
      { ls -la /usr/bin/jetchar /lib/systemd/system/jetchar-* /etc/jetchar 2>&1 || true
        find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
             /var/lib/systemd/deb-systemd-helper-masked -name '*jetchar*' 2>/dev/null | sort
        dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null | grep -v ' not-installed$' | sort; } 
    }
    before=$(snapshot)
    purge() { DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq jetchar >&2 || dpkg --purge jetchar >&2; }
    trap 'purge; rm -rf "$tmp"' EXIT
    # apt resolves the Depends as a user's `apt install ./jetchar_*.deb` does. Only jetchar may
    # be new: a missing dependency would be downloaded and stay behind after the purge.
    extra=$(apt-get install -s --no-install-recommends "$deb" | awk '/^Inst / && $2 != "jetchar" {print $2}')
    [[ -z $extra ]] || fail "installing $deb would also install: $(echo $extra) (scripts/install-deps.sh first)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >&2 ||
      fail "apt-get install $deb failed"
    version=$(/usr/bin/jetchar --version) || fail "installed /usr/bin/jetchar --version failed"
    check_packaged_fixtures /usr/share/jetchar/boards /usr/bin/jetchar
    systemd-analyze verify --man=no /lib/systemd/system/jetchar-restore.service 2>&1 | tee "$tmp/verify.txt" >&2
    [[ ! -s $tmp/verify.txt ]] || fail "installed units do not verify"
    [[ -L /etc/systemd/system/multi-user.target.wants/jetchar-restore.service ]] ||
      fail "postinst did not enable jetchar-restore.service"
    log "installed: /usr/bin/jetchar --version: $version; jetchar-restore.service enabled"
    trap 'rm -rf "$tmp"' EXIT
    purge
    after=$(snapshot)
    if [[ $before != "$after" ]]; then
      diff <(echo "$before") <(echo "$after") >&2 || true
      fail "the machine differs after purging jetchar"
    fi
    log "purged; machine as before"
  fi
else
  # Every dependency must name a package of the sysroot (what the board has installed).
  for dep in $(sed 's/([^)]*)//g; s/|/,/g; s/,/ /g' <<<"$depends"); do
    grep -qx "Package: $dep" "$sysroot/var/lib/dpkg/status" || fail "Depends names '$dep', not a package of $sysroot"
  done
  readelf -h "$tmp/usr/bin/jetchar" | grep -q 'Machine: *AArch64' || fail "$deb: usr/bin/jetchar is not an aarch64 binary"
  version=$(qemu-aarch64 -L "$sysroot" "$tmp/usr/bin/jetchar" --version) || fail "jetchar --version under qemu-aarch64"
  # LibTorch at work in the packaged binary: a CNN, a residual net and a transformer are built and
  # their parameters and MACs counted.
  models=(lenet5 resnet18-cifar bert-tiny)
  qemu-aarch64 -L "$sysroot" "$tmp/usr/bin/jetchar" models "${models[@]}" > "$tmp/models.txt" ||
    fail "jetchar models under qemu-aarch64"
  for model in "${models[@]}"; do
    grep -q "^$model " "$tmp/models.txt" || fail "jetchar models (aarch64) does not list $model"
  done
  check_packaged_fixtures "$tmp/usr/share/jetchar/boards" qemu-aarch64 -L "$sysroot" "$tmp/usr/bin/jetchar"
  log "aarch64 jetchar under qemu: --version, models ${models[*]}, device info sim:agx-orin-r36 OK"
fi
log "jetchar --version: $version"
echo "$deb"
