#!/usr/bin/env bash
# Builds a fuzzer (libFuzzer + ASan + UBSan, Debian's clang) and runs it for
# a bounded time over a copy of its seed corpus:
#   job_decoder    the job decoder (job_decoder_fuzz.cc), tests/fuzz/corpus
#   image_decoder  the image decoder and its codec libraries
#                  (image_decoder_fuzz.cc), tests/fuzz/image_corpus
#
#   tests/fuzz/run.sh [SECONDS] [TARGET]   default 60 s, job_decoder; ctest
#                                          runs each (label: fuzz)
#   tests/fuzz/run.sh 3600 image_decoder   a longer run, e.g. by hand
#
# Environment:
#   QINFER_FUZZ_BUILD_DIR   where the binary and crash artifacts go
#                           (default <repo>/build/fuzz)
#   QINFER_FUZZ_JOBS        parallel fuzzing processes (default 1)
#   QINFER_FUZZ_CXXFLAGS    extra compiler flags
#                           (also checks the known decoder bugs; fails today)
#   CXX_FUZZ                the compiler (default clang++)
#
# The repo's corpus is never written: new inputs go to a temp copy that is
# deleted at the end. On a crash the input is kept under
# $QINFER_FUZZ_BUILD_DIR/crashes/ and its path is printed. To reproduce it and
# keep it as a regression seed once fixed:
#   $QINFER_FUZZ_BUILD_DIR/job_decoder_fuzz <crash file>    # replays one input
#   cp <crash file> tests/fuzz/corpus/<what-it-found>        # then commit it
# (image_decoder_fuzz and tests/fuzz/image_corpus for the image decoder)
# To fold inputs a long run found back into the corpus, minimised:
#   $QINFER_FUZZ_BUILD_DIR/job_decoder_fuzz -merge=1 tests/fuzz/corpus <dir>
#
# Exit status: 0 clean, 1 crash or invariant violation (or build failure),
# 77 clang++/libFuzzer not installed (ctest shows the test as skipped;
# deploy/setup.sh installs them).
set -euo pipefail

seconds=${1:-60}
target=${2:-job_decoder}
[[ $seconds =~ ^[0-9]+$ && $target =~ ^(job_decoder|image_decoder)$ ]] ||
  { echo "usage: $0 [SECONDS] [job_decoder|image_decoder]" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd)
build=${QINFER_FUZZ_BUILD_DIR:-$repo/build/fuzz}
jobs=${QINFER_FUZZ_JOBS:-1}
cxx=${CXX_FUZZ:-clang++}
name=${target}_fuzz
bin=$build/$name

if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found; install clang and libclang-rt-14-dev (deploy/setup.sh)" >&2
  exit 77
fi

if [[ $target == job_decoder ]]; then
sources=(
  "$here/job_decoder_fuzz.cc"
  "$repo/consumer/src/job_decoder.cc"
  "$repo/consumer/src/job_envelope.cc"
  "$repo/consumer/src/job_input.cc"
  "$repo/consumer/src/job_image.cc"
  "$here/image_processor_stub.cc"
  "$repo/core/src/clock.cc"
  "$repo/core/src/job.cc"
  "$repo/core/src/json_scan.cc"
  "$repo/core/src/outcome_json.cc"
  "$repo/core/src/output_encoding.cc"
  "$repo/core/src/utf8.cc"
  "$repo/tokenizer/src/tokenizer.cc"
)
headers=(
  "$repo/consumer/include/qinfer/consumer/job_decoder.h"
  "$repo/consumer/src/decoder_internal.h"
  "$repo/core/include/qinfer/core/job.h"
  "$repo/core/include/qinfer/core/json_scan.h"
  "$repo/core/include/qinfer/core/clock.h"
  "$repo/core/include/qinfer/core/outcome_json.h"
  "$repo/core/include/qinfer/core/outcome_items_json.h"
  "$repo/core/include/qinfer/core/output_encoding.h"
  "$repo/core/include/qinfer/core/task.h"
  "$repo/core/include/qinfer/core/utf8.h"
  "$repo/tokenizer/include/qinfer/tokenizer/tokenizer.h"
  "$repo/consumer/include/qinfer/consumer/decode_pool.h"
)
# An image job's step (job_image.cc) calls the image module, which a text
# model's limits never reach: stand-ins that trap (image_processor_stub.cc;
# the codecs are fuzzed by the image_decoder target, not compiled here).
headers+=("$repo/image/include/qinfer/image/decode.h" "$repo/image/include/qinfer/image/processor.h")
# The Rust half of the tokenizer (Hugging Face tokenizers behind its C ABI),
# as the CMake build made it: $QINFER_TOKENIZER_RUST_LIB, which ctest sets.
rust_lib=${QINFER_TOKENIZER_RUST_LIB:-$repo/build/tokenizer/libqinfer_tokenizer_rust.a}
if [[ ! -f $rust_lib ]]; then
  echo "fuzz: $rust_lib not found: build the project first (deploy/build.sh)" >&2
  exit 1
fi
export QINFER_FUZZ_TOKENIZER=${QINFER_FUZZ_TOKENIZER:-$repo/tests/data/tiny-tokenizer.json}
inputs=("$rust_lib")
includes=(-I"$repo/core/include" -I"$repo/consumer/include" -I"$repo/tokenizer/include" -I"$repo/tokenizer/src"
          -I"$repo/image/include")
# cpp-httplib (image_url) as Debian builds it: OpenSSL, zlib and brotli.
pkgs=(absl_status absl_statusor absl_strings absl_str_format cpp-httplib openssl zlib libbrotlidec libbrotlienc)
links=("$rust_lib" -lpthread -ldl -lm)
corpus_dir=$here/corpus
run_options=(-dict="$here/json.dict")
log=$build/fuzz.log
build_log=$build/build.log
else
# The image module's decode sources alone (no torch), over the system's
# codec libraries; stb_image's BMP reader is compiled into bmp_codec.cc.
sources=("$here/image_decoder_fuzz.cc")
for codec in decode jpeg_codec png_codec webp_codec gif_codec bmp_codec tiff_codec orientation; do
  sources+=("$repo/image/src/$codec.cc")
done
headers=("$repo/image/include/qinfer/image/decode.h" "$repo/image/src/codecs.h")
inputs=()
includes=(-I"$repo/image/include" -I"$repo/image/src")
pkgs=(absl_status absl_statusor absl_strings absl_str_format libjpeg libpng16 libwebp libwebpdemux libtiff-4 libexif)
links=(-lgif -lpthread -lm)
corpus_dir=$here/image_corpus
run_options=()
log=$build/${name}.log
build_log=$build/${name}.build.log
fi

mkdir -p "$build"
flags_file=$build/$name.flags
flags="-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined ${QINFER_FUZZ_CXXFLAGS:-}"

stale=0
[[ -x $bin && -f $flags_file && $(cat "$flags_file") == "$flags" ]] || stale=1
for f in "${sources[@]}" "${headers[@]}" "${inputs[@]}" "$0"; do
  [[ $f -nt $bin ]] && stale=1
done
# A fresh clone (CI) takes the binary from the cache, keyed by everything
# that goes into it: the compiler, the flags, absl's, the sources and
# headers, the Rust library (cargo builds it the same in every clone) and
# this script. The cached binary's debug info names the clone that built it.
cache=${QINFER_CACHE:-$HOME/.cache/qinfer}/fuzz
key=$({
  "$cxx" --version | head -1
  echo "$flags"
  pkg-config --cflags --libs "${pkgs[@]}" 2>/dev/null || true
  sha256sum "${sources[@]}" "${headers[@]}" "${inputs[@]}" "$0" | cut -d' ' -f1
} | sha256sum | cut -c1-16)
if ((stale)) && [[ -x $cache/$key/$name ]]; then
  echo "fuzz: $bin from the cache ($cache/$key)"
  cp "$cache/$key/$name" "$bin.tmp" && mv "$bin.tmp" "$bin"
  echo "$flags" >"$flags_file"
  stale=0
fi
if ((stale)); then
  echo "fuzz: building $bin"
  if ! pkg_cflags=$(pkg-config --cflags "${pkgs[@]}") || ! pkg_libs=$(pkg-config --libs "${pkgs[@]}"); then
    echo "fuzz: pkg-config cannot find ${pkgs[*]} (libabsl-dev; the codecs' -dev packages: deploy/setup.sh)" >&2
    exit 1
  fi
  # shellcheck disable=SC2086  # flag lists are meant to split
  if ! "$cxx" $flags "${includes[@]}" $pkg_cflags \
       "${sources[@]}" "${links[@]}" $pkg_libs -o "$bin.tmp" 2>"$build_log"; then
    cat "$build_log" >&2
    if grep -q 'libclang_rt.fuzzer' "$build_log"; then
      echo "fuzz: libFuzzer runtime missing; install libclang-rt-14-dev" >&2
      exit 77
    fi
    echo "fuzz: build failed" >&2
    exit 1
  fi
  mv "$bin.tmp" "$bin"
  echo "$flags" >"$flags_file"
  # Kept under its key; only the three newest keys stay.
  mkdir -p "$cache/$key.tmp.$$"
  cp "$bin" "$cache/$key.tmp.$$/$name"
  rm -rf "$cache/$key" && mv "$cache/$key.tmp.$$" "$cache/$key" || rm -rf "$cache/$key.tmp.$$"
  ls -dt "$cache"/*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/qinfer-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$build/crashes"
cp "$corpus_dir"/* "$work/corpus/"
stamp=$(date +%Y%m%d-%H%M%S)

options=(
  -max_total_time="$seconds"
  -max_len=65536
  -timeout=10
  -rss_limit_mb=2048
  -print_final_stats=1
  "${run_options[@]}"
  -artifact_prefix="$build/crashes/$stamp-"
)
if ((jobs > 1)); then
  options+=(-fork="$jobs")
fi

echo "fuzz: running $target for ${seconds}s over $(ls "$work/corpus" | wc -l) seed(s); log $log"
start=$SECONDS
rc=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$bin" "${options[@]}" "$work/corpus" >"$log" 2>&1 || rc=$?
elapsed=$((SECONDS - start))

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
if [[ -z $execs ]]; then  # -fork mode prints no final stats; take its last status line
  execs=$(sed -n 's/^#\([0-9]*\): .*/\1/p' "$log" | tail -1)
  ((elapsed > 0)) && [[ -n $execs ]] && rate=$((execs / elapsed))
fi
corpus=$(ls "$work/corpus" | wc -l)

if ((rc != 0)); then
  tail -n 60 "$log" >&2
  crash=$(ls -t "$build"/crashes/"$stamp"-* 2>/dev/null | head -1 || true)
  echo "fuzz: FAILED (exit $rc) after ${elapsed}s; crash input: ${crash:-none saved (see $log)}" >&2
  [[ -n $crash ]] && echo "fuzz: replay with: $bin $crash" >&2
  exit 1
fi
echo "fuzz: ok: $target: ${execs:-?} execs in ${elapsed}s (${rate:-?}/s), corpus ${corpus} inputs"
