#!/usr/bin/env bash
# Builds an aarch64 sysroot from Debian 12 arm64 packages: the library -dev packages that
# scripts/install-deps.sh lists, plus libc/libstdc++ headers, and everything they depend on.
# Packages are downloaded and extracted with `dpkg-deb -x`, never installed, so the host's
# dpkg database is untouched (apart from `dpkg --add-architecture arm64`).
#
# Usage: scripts/build-sysroot.sh            prints the sysroot path on stdout
# Environment:
#   JETCHAR_SYSROOT_CACHE  where .debs and the tree go (default /var/cache/jetchar/sysroot-aarch64)
# Idempotent: when apt resolves the same package set as the tree was extracted from, nothing is
# downloaded or extracted; otherwise apt downloads what its cache lacks and the tree is re-extracted. A failed download is an error (exit != 0), never a silently smaller sysroot.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${JETCHAR_SYSROOT_CACHE:-/var/cache/jetchar/sysroot-aarch64}
debs=$cache/debs
root=$cache/root
state=$cache/apt-state        # an empty dpkg status: apt resolves as if for a fresh arm64 system
mkdir -p "$debs/partial" "$state"
: > "$state/status"

log() { echo "build-sysroot: $*" >&2; }

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"

# Host tools for the cross build and for running its tests.
host_tools=(g++-aarch64-linux-gnu qemu-user dpkg-dev)
missing=()
for p in "${host_tools[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] || missing+=("$p")
done
need_update=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
  need_update=1
fi
# arm64 package lists exist once apt-get update ran after adding the architecture.
compgen -G "/var/lib/apt/lists/*_binary-arm64_Packages*" >/dev/null || need_update=1
# Everything but the sysroot's path goes to stderr: callers capture stdout ($(build-sysroot.sh)).
if [[ $need_update -eq 1 || ${#missing[@]} -gt 0 ]]; then
  log "apt-get update"
  $sudo apt-get update -qq >&2
fi
if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing host tools: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The library -dev packages come from install-deps.sh, so a library added there is in the
# sysroot too; tools (cmake, protoc, python3-*) are host-only.
mapfile -t dev_packages < <(sed -n '/^packages=(/,/^)/p' scripts/install-deps.sh |
                            grep -oE '(^|[[:space:]])[a-z0-9][a-z0-9.+-]*-dev\b' | tr -d ' ' | sort -u)
[[ ${#dev_packages[@]} -gt 0 ]] || { log "no -dev packages found in scripts/install-deps.sh"; exit 1; }
packages=("${dev_packages[@]}" libc6-dev libstdc++-12-dev linux-libc-dev)

# apt's own resolver (one alternative per dependency, no Recommends) against an empty status
# file with arm64 as the native architecture: the closure a fresh arm64 system would install.
apt_opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
          -o Dir::State::status="$state/status" -o Dir::State::extended_states="$state/extended_states"
          -o Dir::Cache::archives="$debs" -o APT::Install-Recommends=false -o APT::Install-Suggests=false
          -o Debug::NoLocking=true)
log "resolving ${#packages[@]} packages for arm64"
apt-get -s "${apt_opts[@]}" install "${packages[@]}" > "$state/resolution.txt"
mapfile -t closure < <(awk '/^Inst /{print $2}' "$state/resolution.txt" | sort -u)
[[ ${#closure[@]} -gt 0 ]] || { log "apt resolved nothing; see $state/resolution.txt"; exit 1; }
# The exact .debs of this resolution (name_version_arch.deb, ':' in versions escaped as %3a).
mapfile -t files < <(awk '/^Inst /{v=$3; sub(/^\(/, "", v); sub(/:/, "%3a", v);
                                   match($0, /\[(arm64|all)\]/); a=substr($0, RSTART + 1, RLENGTH - 2);
                                   print $2 "_" v "_" a ".deb"}' \
                       "$state/resolution.txt" | sort -u)

# The tree records the .debs it was extracted from: the same resolution needs no download (apt
# would re-verify every cached .deb) and no extraction.
stamp=$root/.jetchar-sysroot-packages
if [[ -f "$stamp" ]] && cmp -s "$stamp" <(printf '%s\n' "${files[@]}"); then
  log "sysroot up to date: $root"
  echo "$root"
  exit 0
fi

log "downloading ${#closure[@]} packages into $debs"
apt-get -qq -y --download-only "${apt_opts[@]}" install "${packages[@]}" >&2
for f in "${files[@]}"; do
  [[ -f "$debs/$f" ]] || { log "missing after download: $debs/$f"; exit 1; }
done

log "extracting ${#files[@]} packages into $root"
rm -rf "$root.new"
mkdir -p "$root.new"
# A dpkg database like a board's root file system has (status, file lists, shlibs), so that
# scripts/package.sh can map the libraries a cross-built binary needs to package dependencies
# the same way for this tree and for a JetPack rootfs. dpkg-deb -X lists while it extracts.
admin=$root.new/var/lib/dpkg
mkdir -p "$admin/info"
: > "$admin/status"
ctrl=$cache/control
for f in "${files[@]}"; do
  rm -rf "$ctrl"
  dpkg-deb -e "$debs/$f" "$ctrl"
  pkg=$(sed -n 's/^Package: //p' "$ctrl/control")
  arch=$(sed -n 's/^Architecture: //p' "$ctrl/control")
  dpkg-deb -X "$debs/$f" "$root.new" | sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' > "$admin/info/$pkg:$arch.list"
  { sed '/^Package:/a Status: install ok installed' "$ctrl/control"; echo; } >> "$admin/status"
  if [[ -f $ctrl/shlibs ]]; then cp "$ctrl/shlibs" "$admin/info/$pkg:$arch.shlibs"; fi
done
rm -rf "$ctrl"

# Absolute symlinks (libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1) would point into the host;
# make each relative to its own directory so it resolves inside the sysroot wherever it lies.
fixed=0
while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  [[ $target == /* ]] || continue
  rel=$(realpath -s -m --relative-to="$(dirname "$link")" "$root.new$target")
  ln -sfn "$rel" "$link"
  fixed=$((fixed + 1))
done < <(find "$root.new" -type l -print0)
log "made $fixed absolute symlinks relative"

# update-alternatives never ran: give libtorch the BLAS/LAPACK it links (libblas.so.3 ->
# blas/libblas.so.3), as the postinst of libblas3/liblapack3 would.
for alt in blas lapack; do
  for lib in "$root.new"/usr/lib/aarch64-linux-gnu/$alt/lib$alt.so*; do
    [[ -e $lib ]] || continue
    link=$root.new/usr/lib/aarch64-linux-gnu/$(basename "$lib")
    [[ -e $link ]] || ln -s "$alt/$(basename "$lib")" "$link"
  done
done

printf '%s\n' "${files[@]}" > "$root.new/.jetchar-sysroot-packages"
rm -rf "$root"
mv "$root.new" "$root"
log "sysroot ready: $root ($(du -sh "$root" | cut -f1))"
echo "$root"
