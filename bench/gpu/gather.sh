#!/usr/bin/env bash
# Gathers the C++ dependencies of the GPU bench build (bench/gpu/CMakeLists.txt)
# that are not torch into bench/gpu/vendor/, a folder git ignores, exactly as
# bench/gpu/vendor.lock pins them: the prepare step before a GPU run. The
# folder then travels with the tree to the (air-gapped) GPU machine, and the
# CMake build checks every file of it against the lock before using it.
#
#   bench/gpu/gather.sh [--into DIR] [--latest]
#
#   --into DIR  gather into DIR instead of bench/gpu/vendor/ (build against it
#               with cmake -DQINFER_GPU_VENDOR=DIR)
#   --latest    take whatever Debian 12 (bookworm) serves now instead of the
#               locked versions, and rewrite bench/gpu/vendor.lock to match
#               (then review the lock's diff, rebuild, and commit the lock)
#
# Runs on a Debian machine that reaches Debian's archive (apt-get, dpkg-deb,
# dpkg-source, sha256sum; the debian-archive-keyring package). Uses a private
# apt configuration under a temporary directory (deb + deb-src lines for
# bookworm, bookworm-updates and bookworm-security, architecture amd64 whatever
# the machine's), so the machine's own sources and package state are left
# alone. It fetches
#   - abseil as Debian's source package (apt-get source: upstream tarball plus
#     Debian's patches, applied), built from source on the GPU machine, so that
#     it needs no glibc or libstdc++ of Debian's and is compiled with torch's
#     _GLIBCXX_USE_CXX11_ABI;
#   - spdlog, fmt, nlohmann-json and CLI11 as Debian's -dev binary packages
#     (apt-get download), of which only the headers and Debian's copyright
#     file are kept: all four are used header-only (spdlog with
#     SPDLOG_HEADER_ONLY and fmt with FMT_HEADER_ONLY).
# apt checks every download against the archive's signed index; this script
# then checks each download's SHA-256 against the lock, and, once unpacked,
# the SHA-256 of every file of the folder (and that there is no other file).
# Nothing is written into the destination unless every check passes.
#
# Exit status: 0 gathered and matching the lock; 1 a tool is missing or the
# archive could not be reached; 2 bad arguments; 3 a locked version is no
# longer served; 4 a download or a gathered file differs from the lock.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOCK=$HERE/vendor.lock
dest=$HERE/vendor
latest=0
# Debian package -> kind, in the order of the lock.
PACKAGES=(libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev abseil)
declare -A KIND=([libspdlog-dev]=binary [libfmt-dev]=binary [nlohmann-json3-dev]=binary
                 [libcli11-dev]=binary [abseil]=source)

usage() { echo "usage: bench/gpu/gather.sh [--into DIR] [--latest]" >&2; exit 2; }
while (($#)); do
  case $1 in
    --latest) latest=1; shift ;;
    --into) dest=${2:?}; shift 2 ;;
    -h | --help) sed -n '/^#   bench\/gpu\/gather.sh/,/commit the lock/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "gather.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
for tool in apt-get apt-cache dpkg-deb dpkg-source sha256sum realpath; do
  command -v "$tool" >/dev/null || { echo "gather.sh: needs $tool (a Debian machine with dpkg-dev)" >&2; exit 1; }
done
dest=$(realpath -m "$dest")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -r $keyring ]] || { echo "gather.sh: needs $keyring (apt-get install debian-archive-keyring)" >&2; exit 1; }
if ((!latest)) && [[ ! -f $LOCK ]]; then
  echo "gather.sh: no $LOCK; bench/gpu/gather.sh --latest writes one" >&2; exit 1
fi

# The locked version of a package (empty when the lock has none).
locked_version() { awk -v p="$1" '$1 == "package" && $2 == p { print $4 }' "$LOCK"; }

work=$(mktemp -d)
trap 'rm -rf "$work" "$dest.new"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
{
  for kind in deb deb-src; do
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian bookworm main"
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian bookworm-updates main"
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main"
  done
} >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root
     -o APT::Architecture=amd64 -o APT::Architectures::=amd64
     -o Acquire::Retries=1 -o Acquire::http::Timeout=30)
echo "==> apt-get update (private lists in $work)"
if ! apt-get "${apt[@]}" -qq --error-on=any update; then
  echo "gather.sh: could not read Debian 12's package index (above: what apt-get update said)." >&2
  echo "  Run bench/gpu/gather.sh on a machine that reaches Debian's archive, then bring" >&2
  echo "  bench/gpu/vendor/ along to the GPU machine with the tree (docs/benchmarks/gpu.md)." >&2
  exit 1
fi

# Every locked version must still be served; say what is served instead.
check_served() {
  local pkg ver served missing=0
  for pkg in "${PACKAGES[@]}"; do
    ver=$(locked_version "$pkg")
    [[ -n $ver ]] || { echo "gather.sh: $LOCK names no version of $pkg; --latest rewrites the lock" >&2; exit 1; }
    served=$(apt-cache "${apt[@]}" madison "$pkg" |
      awk -F' [|] ' -v k="${KIND[$pkg]}" '($3 ~ / Sources$/) == (k == "source") { gsub(/ /, "", $2); print $2 }' |
      sort -u | tr '\n' ' ' | sed 's/ $//')
    if [[ " $served " != *" $ver "* ]]; then
      echo "gather.sh: $pkg $ver (locked) is no longer served by bookworm; it serves: ${served:-nothing}" >&2
      missing=1
    fi
  done
  if ((missing)); then
    echo "  bench/gpu/gather.sh --latest takes what bookworm serves now and rewrites bench/gpu/vendor.lock;" >&2
    echo "  review the lock's diff, rebuild (bench/gpu/run.sh), and commit the lock." >&2
    exit 3
  fi
}
spec() {  # name=version, or the bare name with --latest
  if ((latest)); then echo "$1"; else echo "$1=$(locked_version "$1")"; fi
}
((latest)) || check_served
echo "==> apt-get download / apt-get source"
(cd "$work/dl" &&
  apt-get "${apt[@]}" -qq download "$(spec libspdlog-dev)" "$(spec libfmt-dev)" \
    "$(spec nlohmann-json3-dev)" "$(spec libcli11-dev)" &&
  apt-get "${apt[@]}" -qq source --download-only "$(spec abseil)") ||
  { echo "gather.sh: the download failed (above: what apt-get said)" >&2; exit 1; }

# The downloads as the lock lists them: "artifact <sha256> <file>", sorted.
artifact_lines() {
  (cd "$work/dl" && find . -maxdepth 1 -type f -printf '%f\0' | LC_ALL=C sort -z | xargs -0 sha256sum) |
    awk '{ print "artifact " $1 " " $2 }'
}
# The gathered folder as the lock lists it: "file <sha256> <path>", sorted.
file_lines() {
  (cd "$1" && find . -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 sha256sum) |
    awk '{ print "file " $1 " " substr($0, 67) }'
}
# Fails (exit 4) unless the lock's lines of one kind are exactly these.
check_against_lock() {  # kind what lines-file hint
  if ! diff <(grep "^$1 " "$LOCK") "$3" >"$work/diff"; then
    echo "gather.sh: $2 differ from bench/gpu/vendor.lock ('<' the lock, '>' what was gathered):" >&2
    grep '^[<>]' "$work/diff" | head -20 >&2
    echo "  Nothing was written to $dest. $4" >&2
    echo "  Only if that change is meant, bench/gpu/gather.sh --latest rewrites the lock: review its diff." >&2
    exit 4
  fi
}
artifact_lines >"$work/artifacts"
((latest)) || check_against_lock artifact "the downloads' SHA-256 sums" "$work/artifacts" \
  "apt checked them against the archive's signed index, so the archive serves other files at these versions."

rm -rf "$dest.new"
mkdir -p "$dest.new"
out=$dest.new

# Header-only libraries: the headers and Debian's copyright file.
unpack_headers() {  # package include-subdir dest
  local deb
  deb=$(ls "$work"/dl/"$1"_*.deb)
  rm -rf "$work/x" && mkdir "$work/x" && dpkg-deb -x "$deb" "$work/x"
  mkdir -p "$out/$3/include"
  cp -a "$work/x/usr/include/$2" "$out/$3/include/"
  cp "$work/x/usr/share/doc/$1/copyright" "$out/$3/copyright"
}
unpack_headers libspdlog-dev spdlog spdlog
unpack_headers libfmt-dev fmt fmt
unpack_headers nlohmann-json3-dev nlohmann nlohmann_json
unpack_headers libcli11-dev CLI cli11

# abseil: Debian's source package with its patches applied (dpkg-source -x),
# without tests, benchmarks, test data, test-only helpers, Bazel files, CI
# scripts or docs; Debian's copyright file as copyright.debian.
dsc=$(ls "$work"/dl/abseil_*.dsc)
dpkg-source -x "$dsc" "$work/abseil" >"$work/dpkg-source.log" 2>&1 || { cat "$work/dpkg-source.log" >&2; exit 1; }
mkdir -p "$out/abseil"
cp -a "$work/abseil/CMakeLists.txt" "$work/abseil/LICENSE" "$work/abseil/absl" "$out/abseil/"
mkdir -p "$out/abseil/CMake"
cp -a "$work/abseil/CMake/AbseilHelpers.cmake" "$work/abseil/CMake/AbseilDll.cmake" \
      "$work/abseil/CMake/abslConfig.cmake.in" "$out/abseil/CMake/"
cp "$work/abseil/debian/copyright" "$out/abseil/copyright.debian"
find "$out/abseil/absl" \( -name '*_test.cc' -o -name '*_benchmark.cc' -o -name '*_test_helper*' \
  -o -name '*_testing.h' -o -name '*_testing.cc' -o -name '*_test_util*' -o -name '*_test_helpers.h' \
  -o -name '*_test_common*' -o -name 'test_instance_tracker.*' -o -name '*_test.h' -o -name 'test_util.*' \
  -o -name 'inline_variable_test_*' -o -name 'flag_test_defs.cc' -o -name 'testdata' \
  -o -name 'BUILD.bazel' -o -name '*.md' -o -name '*.py' -o -name 'mocking_bit_gen.h' \
  -o -name 'mock_*.h' -o -name '*_mock*.h' \) -prune -exec rm -rf {} +
# absl::flags and absl::random: nothing the bench links needs them, and no
# other directory's libraries link them.
rm -rf "$out/abseil/absl/flags" "$out/abseil/absl/random"
sed -i -e '/^add_subdirectory(flags)$/d' -e '/^add_subdirectory(random)$/d' "$out/abseil/absl/CMakeLists.txt"

file_lines "$out" >"$work/files"
if ((latest)); then
  write_lock() {
    local pkg ver
    cat <<EOF
# bench/gpu/vendor.lock: what bench/gpu/gather.sh gathers into bench/gpu/vendor/
# (ignored by git) for the GPU bench build, from Debian 12 (bookworm,
# bookworm-updates, bookworm-security; amd64). Written by
# \`bench/gpu/gather.sh --latest\`; do not edit by hand. bench/gpu/gather.sh
# checks its downloads and the folder it unpacks against this file, and
# bench/gpu/CMakeLists.txt checks the folder against it before using it.
# Debian's patches applied to abseil: $(tr '\n' ' ' <"$work/abseil/debian/patches/series" | sed 's/ $//').
#
# package <Debian package> <binary|source> <version>
# artifact <SHA-256> <file downloaded>
# file <SHA-256> <path in bench/gpu/vendor/>
EOF
    for pkg in "${PACKAGES[@]}"; do
      if [[ ${KIND[$pkg]} == binary ]]; then ver=$(dpkg-deb -f "$(ls "$work"/dl/"$pkg"_*.deb)" Version)
      else ver=$(sed -n 's/^Version: //p' "$dsc"); fi
      echo "package $pkg ${KIND[$pkg]} $ver"
    done
    cat "$work/artifacts" "$work/files"
  }
  old=$(grep '^package ' "$LOCK" 2>/dev/null || echo "(no lock)")
  write_lock >"$LOCK.new" && mv "$LOCK.new" "$LOCK"
  now=$(grep '^package ' "$LOCK")
  if [[ $old == "$now" ]]; then
    echo "==> wrote $LOCK; the versions are those it had"
  else
    echo "==> wrote $LOCK; versions before ('<') and now ('>'):"
    diff <(echo "$old") <(echo "$now") | grep '^[<>]' || true
  fi
else
  check_against_lock file "the gathered files' SHA-256 sums" "$work/files" \
    "The downloads match the lock, so what changed is how this script unpacks them."
fi

rm -rf "$dest"
mv "$out" "$dest"
echo "==> wrote $dest ($(du -sh --apparent-size "$dest" | cut -f1) in $(find "$dest" -type f | wc -l) files), matching bench/gpu/vendor.lock"
