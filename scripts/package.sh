#!/usr/bin/env bash
# Builds the jetchar .deb and checks it. Usage:
#   scripts/package.sh [native|cross] [--install]
# native  amd64 package from build/release (Depends from dpkg-shlibdeps); the package is checked
#         with `dpkg --dry-run -i` (its Depends are satisfiable here), extracted with dpkg-deb -x,
#         and the extracted /usr/bin/jetchar must run `--version`. --install really installs it.
# cross   arm64 package from build/cross-aarch64 (JETCHAR_SYSROOT, default: scripts/build-sysroot.sh);
#         Depends are computed from the sysroot's dpkg database (see deb_depends below) and the
#         extracted binary runs `--version` under qemu-aarch64 with the sysroot.
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

# Depends for a cross-built binary: every DT_NEEDED soname is looked up in the sysroot's dpkg
# file lists; the owning package's shlibs file gives the versioned dependency (what
# dpkg-shlibdeps does natively). A library no package owns (NVIDIA's pip-installed LibTorch) is
# reported and left out: it reaches the board with the wheel, found through the RUNPATH.
deb_depends() {
  local binary=$1 sysroot=$2 admin=$2/var/lib/dpkg deps=() so list pkg dep name ver rest
  [[ -f $admin/status ]] || fail "$sysroot has no dpkg database (var/lib/dpkg/status)"
  for so in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
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
    cmake -S . -B "$dir" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
    cmake --build "$dir" --target jetchar
    cpack_args=()
    ;;
  cross)
    sysroot=${JETCHAR_SYSROOT:-$(scripts/build-sysroot.sh)}
    export JETCHAR_SYSROOT=$sysroot
    dir=${JETCHAR_PACKAGE_BUILD_DIR:-build/cross-aarch64}
    [[ -f $dir/CMakeCache.txt ]] || cmake --preset cross-aarch64 >/dev/null
    cmake -S . -B "$dir" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
    cmake --build "$dir" --target jetchar
    depends=$(deb_depends "$dir/cli/jetchar" "$sysroot")
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

# Contents: the binary, the units, the examples folder, the docs and the sweeps directory.
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/jetchar ./usr/lib/systemd/system/jetchar-sweep@.service \
            ./usr/lib/systemd/system/jetchar-sweep@.timer ./usr/lib/systemd/system/jetchar-restore.service \
            ./usr/share/jetchar/examples/ ./usr/share/doc/jetchar/README.md ./etc/jetchar/sweeps/; do
  grep -qF " $path" <<<"$contents" || fail "$deb lacks $path"
done
[[ $(dpkg-deb -f "$deb" Architecture) == "$arch" ]] || fail "$deb: Architecture is not $arch"
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libtorch <<<"$depends" || fail "$deb: Depends has no libtorch: '$depends'"
grep -q '/usr/bin/jetchar' < <(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/jetchar-sweep@.service) ||
  fail "$deb: the sweep unit does not run /usr/bin/jetchar"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
if [[ $mode == native ]]; then
  dpkg --dry-run -i "$deb" >/dev/null || fail "$deb does not install here (dpkg --dry-run -i)"
  version=$("$tmp/usr/bin/jetchar" --version)
  if [[ $install -eq 1 ]]; then
    dpkg -i "$deb" >&2
    version=$(/usr/bin/jetchar --version)
  fi
else
  # Every dependency must name a package of the sysroot (what the board has installed).
  for dep in $(sed 's/([^)]*)//g; s/|/,/g; s/,/ /g' <<<"$depends"); do
    grep -qx "Package: $dep" "$sysroot/var/lib/dpkg/status" || fail "Depends names '$dep', not a package of $sysroot"
  done
  version=$(qemu-aarch64 -L "$sysroot" "$tmp/usr/bin/jetchar" --version)
fi
log "jetchar --version: $version"
echo "$deb"
