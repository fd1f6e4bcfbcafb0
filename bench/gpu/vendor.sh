#!/usr/bin/env bash
# Re-creates bench/gpu/vendor/ from Debian 12's archive: the C++ dependencies
# of the GPU bench build (bench/gpu/CMakeLists.txt) that are not torch, so
# that they travel inside the project tree to an air-gapped GPU machine.
#
#   bench/gpu/vendor.sh [--latest]
#
# Runs on a Debian machine that reaches Debian's archive (apt-get, dpkg-deb,
# dpkg-source). Uses a private apt configuration under a temporary directory
# (deb + deb-src lines for bookworm, bookworm-updates and bookworm-security),
# so the machine's own sources and package state are left alone. It fetches
#   - abseil as Debian's source package (apt-get source: upstream tarball plus
#     Debian's patches, applied), built from source on the GPU machine, so that
#     it needs no glibc or libstdc++ of Debian's and is compiled with torch's
#     _GLIBCXX_USE_CXX11_ABI;
#   - spdlog, fmt, nlohmann-json and CLI11 as Debian's -dev binary packages
#     (apt-get download), of which only the headers are kept: all four are
#     used header-only (spdlog with SPDLOG_HEADER_ONLY and fmt with
#     FMT_HEADER_ONLY).
# The versions are pinned below; with --latest it takes whatever bookworm has
# now and says so. Tests, benchmarks, test data, docs and build files of other
# build systems are left out; vendor/SOURCES.md records the package versions,
# the files' SHA-256 sums and what was left out.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VENDOR=$HERE/vendor

# Package (binary or source) -> version. Debian 12 (bookworm) as of 2025-05.
declare -A PIN=(
  [abseil]=20220623.1-1+deb12u2
  [libspdlog-dev]=1:1.10.0+ds-0.4
  [libfmt-dev]=9.1.0+ds1-2
  [nlohmann-json3-dev]=3.11.2-2
  [libcli11-dev]=2.1.2+ds-1
)
latest=0
case "${1:-}" in
  --latest) latest=1 ;;
  "") ;;
  *) echo "usage: bench/gpu/vendor.sh [--latest]" >&2; exit 2 ;;
esac
for tool in apt-get dpkg-deb dpkg-source sha256sum; do
  command -v "$tool" >/dev/null || { echo "vendor.sh: needs $tool (a Debian machine with dpkg-dev)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
  for kind in deb deb-src; do
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian bookworm main"
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian bookworm-updates main"
    echo "$kind [signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main"
  done
} >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
echo "==> apt-get update (private lists in $work)"
apt-get "${apt[@]}" -qq update

spec() {  # name=version, or the bare name with --latest
  if ((latest)); then echo "$1"; else echo "$1=${PIN[$1]}"; fi
}
echo "==> apt-get download / apt-get source"
(cd "$work/dl" &&
  apt-get "${apt[@]}" -qq download "$(spec libspdlog-dev)" "$(spec libfmt-dev)" \
    "$(spec nlohmann-json3-dev)" "$(spec libcli11-dev)" &&
  apt-get "${apt[@]}" -qq source --download-only "$(spec abseil)")

rm -rf "$VENDOR.new"
mkdir -p "$VENDOR.new"
out=$VENDOR.new

# Header-only libraries: the headers and Debian's copyright file.
unpack_headers() {  # deb-glob include-subdir dest
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

# abseil: Debian's source package with its patches applied, without tests,
# benchmarks, test data, test-only helpers, Bazel files, CI scripts or docs.
dsc=$(ls "$work"/dl/abseil_*.dsc)
# apt checked the files against the archive's signed index; dpkg-source's own
# "cannot verify inline signature" (no Debian keyring here) is expected.
dpkg-source -x "$dsc" "$work/abseil" >"$work/dpkg-source.log" 2>&1 || { cat "$work/dpkg-source.log" >&2; exit 1; }
mkdir -p "$out/abseil"
cp -a "$work/abseil/CMakeLists.txt" "$work/abseil/LICENSE" "$work/abseil/absl" "$out/abseil/"
mkdir -p "$out/abseil/CMake"
cp -a "$work/abseil/CMake/AbseilHelpers.cmake" "$work/abseil/CMake/AbseilDll.cmake" \
      "$work/abseil/CMake/abslConfig.cmake.in" "$out/abseil/CMake/"
(cd "$work/dl" && tar -xf abseil_*.debian.tar.* debian/copyright debian/patches/series)
cp "$work/dl/debian/copyright" "$out/abseil/copyright.debian"
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

# What came from where.
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { du -sh --apparent-size "$1" | cut -f1; }
{
  cat <<EOF
# bench/gpu/vendor: where each piece came from

Generated by \`bench/gpu/vendor.sh\` on $(date -u +%Y-%m-%d) from Debian 12 (bookworm):
http://deb.debian.org/debian (bookworm, bookworm-updates) and
http://deb.debian.org/debian-security (bookworm-security). Do not edit by hand:
rerun the script. apt checked every file against the archive's signed index.
Each piece keeps Debian's copyright file beside it.

| dir | Debian package | version | file | SHA-256 |
| --- | --- | --- | --- | --- |
EOF
  for row in "spdlog libspdlog-dev" "fmt libfmt-dev" "nlohmann_json nlohmann-json3-dev" "cli11 libcli11-dev"; do
    read -r dir pkg <<<"$row"
    deb=$(ls "$work"/dl/"$pkg"_*.deb)
    echo "| \`$dir/\` | $pkg (binary) | $(dpkg-deb -f "$deb" Version) | $(basename "$deb") | \`$(sha "$deb")\` |"
  done
  for f in "$work"/dl/abseil_*; do
    [[ -f $f ]] && echo "| \`abseil/\` | abseil (source) | $(sed -n 's/^Version: //p' "$dsc") | $(basename "$f") | \`$(sha "$f")\` |"
  done
  cat <<EOF

**Header-only pieces** (\`spdlog/\`, \`fmt/\`, \`nlohmann_json/\`, \`cli11/\`): the
package's whole /usr/include/<name> directory as \`<dir>/include/<name>\`, and
/usr/share/doc/<package>/copyright as \`<dir>/copyright\`; nothing else of the
package (no .so, CMake or pkg-config files). Used header-only: spdlog with
SPDLOG_HEADER_ONLY (Debian's tweakme.h sets SPDLOG_FMT_EXTERNAL, so fmt comes from
\`fmt/\`, with FMT_HEADER_ONLY).

**abseil/**: the source package unpacked by \`dpkg-source -x\`, so Debian's patches
are applied ($(tr '\n' ' ' <"$work/dl/debian/patches/series" | sed 's/ $//')).
Debian's configure.diff matters: absl::string_view, optional, any and variant
are abseil's own types and everything lives in the inline namespace
absl::debian3, exactly as in the libabsl-dev that the main build links. Kept:
CMakeLists.txt, LICENSE, CMake/AbseilHelpers.cmake, CMake/AbseilDll.cmake,
CMake/abslConfig.cmake.in and absl/, without tests (*_test.cc), benchmarks,
test data, test-only helpers, mocks, Bazel files, docs and Python scripts;
debian/copyright as copyright.debian. One local change: absl/flags/ and
absl/random/ are left out and their two add_subdirectory lines deleted from
absl/CMakeLists.txt (nothing the bench links needs them). The bench compiles
only the targets it links (absl::status, statusor, base, strings, str_format)
and their dependencies (EXCLUDE_FROM_ALL).

Size: $(size "$out") in $(find "$out" -type f | wc -l) files: abseil $(size "$out/abseil"),
spdlog $(size "$out/spdlog"), fmt $(size "$out/fmt"), nlohmann_json $(size "$out/nlohmann_json"),
cli11 $(size "$out/cli11").
EOF
} >"$out/SOURCES.md"

rm -rf "$VENDOR"
mv "$out" "$VENDOR"
echo "==> wrote $VENDOR ($(size "$VENDOR")); see $VENDOR/SOURCES.md"
