# Arrow/Parquet C++ from the pyarrow wheel in the project venv, as libtorch
# comes from the torch wheel (cmake/Torch.cmake): `qinfer results --export
# FILE.parquet` writes with it, and the tests read its files back with the
# same pyarrow (and DuckDB). Result: INTERFACE target qinfer::parquet
# (parquet + arrow, headers, rpath).
#
# PYARROW_DIR = the pyarrow package dir (…/site-packages/pyarrow); if unset it is
# asked from ${QINFER_PYTHON}. The wheel ships only versioned files
# (libarrow.so.2600, no libarrow.so), so we import the full file paths and never
# use -larrow / pyarrow.create_library_symlinks().
set(PYARROW_DIR "" CACHE PATH "pyarrow package directory (holds include/ and libarrow.so.NNNN)")
if(NOT PYARROW_DIR)
  execute_process(
    COMMAND "${QINFER_PYTHON}" -c
      "import pyarrow; print(pyarrow.__path__[0])"
    OUTPUT_VARIABLE PYARROW_DIR RESULT_VARIABLE _pa_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _pa_rc EQUAL 0)
    message(FATAL_ERROR "Cannot import pyarrow with ${QINFER_PYTHON} (deploy/setup.sh installs it), or pass -DPYARROW_DIR=...")
  endif()
  set(PYARROW_DIR "${PYARROW_DIR}" CACHE PATH "" FORCE)
endif()

# SO version from the headers, so no Python is needed once PYARROW_DIR is known.
file(STRINGS "${PYARROW_DIR}/include/arrow/util/config.h" _arrow_so
     REGEX "^#define ARROW_SO_VERSION \"[0-9]+\"")
string(REGEX REPLACE ".*\"([0-9]+)\".*" "\\1" ARROW_SO_VERSION "${_arrow_so}")
file(STRINGS "${PYARROW_DIR}/include/arrow/util/config.h" _arrow_ver
     REGEX "^#define ARROW_VERSION_STRING ")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" ARROW_VERSION_STRING "${_arrow_ver}")
if(NOT ARROW_SO_VERSION OR NOT EXISTS "${PYARROW_DIR}/libparquet.so.${ARROW_SO_VERSION}")
  message(FATAL_ERROR "No libparquet.so.${ARROW_SO_VERSION} in ${PYARROW_DIR}")
endif()
message(STATUS "Arrow/Parquet ${ARROW_VERSION_STRING} (so ${ARROW_SO_VERSION}) from ${PYARROW_DIR}")

foreach(_lib arrow parquet)
  add_library(qinfer_pa_${_lib} SHARED IMPORTED)
  set_target_properties(qinfer_pa_${_lib} PROPERTIES
    IMPORTED_LOCATION "${PYARROW_DIR}/lib${_lib}.so.${ARROW_SO_VERSION}"
    IMPORTED_SONAME "lib${_lib}.so.${ARROW_SO_VERSION}")
endforeach()
set_target_properties(qinfer_pa_parquet PROPERTIES INTERFACE_LINK_LIBRARIES qinfer_pa_arrow)

add_library(qinfer_parquet INTERFACE)
add_library(qinfer::parquet ALIAS qinfer_parquet)
target_link_libraries(qinfer_parquet INTERFACE qinfer_pa_parquet qinfer_pa_arrow)
# GOTCHA: libparquet.so.NNNN exports ~4,300 unversioned libcrypto symbols (EVP_*,
# X509_*, ... from the OpenSSL linked into it for Parquet encryption). If it comes
# before Debian's libcrypto.so.3 in the executable's DT_NEEDED order, the app's,
# libssl's and librdkafka's OpenSSL calls bind to the wheel's copy: with
# security.protocol=ssl, rd_kafka_new() segfaults in X509_STORE_set_default_paths_ex.
# Debian's gcc links with --as-needed, and CMake is free to order libcrypto after
# libparquet, so we force libcrypto.so.3 to be NEEDED ahead of every library by
# putting it into the link *options* (they precede objects and libraries).
target_link_options(qinfer_parquet INTERFACE
  "SHELL:-Wl,--push-state,--no-as-needed ${OPENSSL_CRYPTO_LIBRARY} -Wl,--pop-state")
target_link_libraries(qinfer_parquet INTERFACE OpenSSL::Crypto)
target_include_directories(qinfer_parquet SYSTEM INTERFACE "${PYARROW_DIR}/include")
# The wheel is built with the new libstdc++ ABI (std::__cxx11 in its exports).
target_compile_definitions(qinfer_parquet INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
# libparquet finds libarrow through its own RUNPATH $ORIGIN; our binaries need this.
target_link_options(qinfer_parquet INTERFACE "-Wl,-rpath,${PYARROW_DIR}")
