# libtorch comes from the torch wheel in the project venv, so the C++ side and
# the model-export scripts always share one torch version.
#
# Where a CUDA toolkit exists we use the wheel's own CMake package
# (find_package(Torch)), which builds the GPU path. Without one that package
# stops with "uses CUDA but I cannot find the CUDA libraries", so we import the
# CPU libraries (torch_cpu, c10) ourselves. Either way the result is the
# INTERFACE target qinfer::torch.

execute_process(
  COMMAND "${QINFER_PYTHON}" -c
    "import torch, os; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch._C._GLIBCXX_USE_CXX11_ABI)); print(torch.utils.cmake_prefix_path)"
  OUTPUT_VARIABLE _torch_info
  RESULT_VARIABLE _torch_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _torch_rc EQUAL 0)
  message(FATAL_ERROR
    "Cannot import torch with ${QINFER_PYTHON}. Run deploy/setup.sh first "
    "(it creates .venv with the torch wheel), or pass -DQINFER_PYTHON=...")
endif()
string(REPLACE "\n" ";" _torch_info "${_torch_info}")
list(GET _torch_info 0 TORCH_DIR)
list(GET _torch_info 1 QINFER_TORCH_VERSION)
list(GET _torch_info 2 _torch_cxx11_abi)
list(GET _torch_info 3 _torch_cmake_prefix)
message(STATUS "libtorch ${QINFER_TORCH_VERSION} from ${TORCH_DIR}")

add_library(qinfer_torch INTERFACE)
add_library(qinfer::torch ALIAS qinfer_torch)

include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  list(APPEND CMAKE_PREFIX_PATH "${_torch_cmake_prefix}")
  find_package(Torch REQUIRED)
  target_link_libraries(qinfer_torch INTERFACE ${TORCH_LIBRARIES})
  target_compile_definitions(qinfer_torch INTERFACE QINFER_WITH_CUDA=1)
  message(STATUS "libtorch: CUDA build")
else()
  foreach(_lib torch_cpu c10)
    add_library(qinfer_torch_${_lib} SHARED IMPORTED)
    set_target_properties(qinfer_torch_${_lib} PROPERTIES
      IMPORTED_LOCATION "${TORCH_DIR}/lib/lib${_lib}.so")
    target_link_libraries(qinfer_torch INTERFACE qinfer_torch_${_lib})
  endforeach()
  target_include_directories(qinfer_torch SYSTEM INTERFACE
    "${TORCH_DIR}/include"
    "${TORCH_DIR}/include/torch/csrc/api/include")
  target_compile_definitions(qinfer_torch INTERFACE
    _GLIBCXX_USE_CXX11_ABI=${_torch_cxx11_abi})
  # The wheel's libraries find each other through $ORIGIN; our binaries find
  # them through this rpath.
  target_link_options(qinfer_torch INTERFACE "-Wl,-rpath,${TORCH_DIR}/lib")
  message(STATUS "libtorch: CPU only (no CUDA toolkit found)")
endif()
target_compile_definitions(qinfer_torch INTERFACE
  QINFER_TORCH_VERSION="${QINFER_TORCH_VERSION}")
