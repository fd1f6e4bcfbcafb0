# Builds the tokenizer crate's static library into OUTPUT (cmake -P, run by
# tokenizer/CMakeLists.txt at build time).
#
#   -DCARGO= -DRUSTC= -DRUSTC_VERSION= -DCRATE_DIR= -DCACHE_DIR= -DTARGET_DIR= -DOUTPUT=
#
# CACHE_DIR (outside the clone, keyed by Cargo.lock and the rustc version)
# holds two things:
#   build/        cargo's build directory (build.build-dir): the compiled
#                 dependencies, shared by every clone and build tree on the
#                 machine. Final artefacts still go to TARGET_DIR, inside
#                 this build tree, so two clones building different sources
#                 at once never overwrite each other's library.
#   lib/<hash>.a  finished libraries by the hash of the crate's sources, so a
#                 fresh clone of an already built tree copies the library
#                 without running cargo (whose fingerprints would rebuild the
#                 crate itself: its files are new to it). The newest few are
#                 kept.
cmake_minimum_required(VERSION 3.22)

foreach(_var CARGO RUSTC RUSTC_VERSION CRATE_DIR CACHE_DIR TARGET_DIR OUTPUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "cargo_build.cmake: -D${_var}= is required")
  endif()
endforeach()

set(_keep 6)

# The sources' hash: manifest, lock file and every .rs file, with their
# paths relative to the crate (so the same tree in another clone matches).
file(GLOB_RECURSE _sources RELATIVE ${CRATE_DIR} ${CRATE_DIR}/src/*.rs)
list(SORT _sources)
set(_digest "${RUSTC_VERSION}\n")
foreach(_file Cargo.toml Cargo.lock ${_sources})
  file(SHA256 ${CRATE_DIR}/${_file} _hash)
  string(APPEND _digest "${_file} ${_hash}\n")
endforeach()
string(SHA256 _digest "${_digest}")
string(SUBSTRING ${_digest} 0 16 _digest)
set(_cached ${CACHE_DIR}/lib/libqinfer_tokenizer-${_digest}.a)

# Copy, then rename: a reader never sees half a file, and concurrent
# builders of the same sources write the same bytes.
function(install_atomically from to)
  get_filename_component(_dir ${to} DIRECTORY)
  file(MAKE_DIRECTORY ${_dir})
  string(RANDOM LENGTH 8 _tag)
  file(COPY_FILE ${from} ${to}.tmp-${_tag})
  file(RENAME ${to}.tmp-${_tag} ${to})
endfunction()

if(EXISTS ${_cached})
  message(STATUS "tokenizer: Rust library ${_digest} from the cache (${_cached})")
  install_atomically(${_cached} ${OUTPUT})
  # Mark it used, for the pruning below.
  file(TOUCH_NOCREATE ${_cached})
  return()
endif()

message(STATUS "tokenizer: cargo build --release --locked (cargo build dir ${CACHE_DIR}/build)")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env
          RUSTC=${RUSTC}
          CARGO_BUILD_BUILD_DIR=${CACHE_DIR}/build
          CARGO_TARGET_DIR=${TARGET_DIR}
          ${CARGO} build --release --locked --manifest-path ${CRATE_DIR}/Cargo.toml
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR
    "cargo build failed (exit ${_rc}). Its first build needs the crates from crates.io: "
    "deploy/setup.sh fetches them (cargo fetch --locked in tokenizer/rust).")
endif()
set(_built ${TARGET_DIR}/release/libqinfer_tokenizer.a)
if(NOT EXISTS ${_built})
  message(FATAL_ERROR "cargo build succeeded but left no ${_built}")
endif()
install_atomically(${_built} ${_cached})
install_atomically(${_built} ${OUTPUT})

# Keep the newest ${_keep} cached libraries (about 40 MB each).
file(GLOB _libs ${CACHE_DIR}/lib/libqinfer_tokenizer-*.a)
set(_stamped)
foreach(_lib ${_libs})
  file(TIMESTAMP ${_lib} _time "%Y%m%d%H%M%S" UTC)
  list(APPEND _stamped "${_time}|${_lib}")
endforeach()
list(SORT _stamped ORDER DESCENDING)
list(LENGTH _stamped _count)
if(_count GREATER _keep)
  list(SUBLIST _stamped ${_keep} -1 _old)
  foreach(_entry ${_old})
    string(REGEX REPLACE "^[0-9]+\\|" "" _lib "${_entry}")
    file(REMOVE ${_lib})
  endforeach()
endif()
