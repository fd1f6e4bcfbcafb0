# ctest's log_format_compile_check: a log format that does not fit its
# arguments must not compile (GCC runs no format checker of absl's, and absl
# formats a mismatch as an empty string), and one that fits must.
#   cmake -DCXX=<compiler> -DINCLUDES=<dir>|<dir>... -DWORK=<dir> -P log_format_check.cmake
string(REPLACE "|" ";" _includes "${INCLUDES}")
set(_flags -std=c++20 -fsyntax-only)
foreach(_dir IN LISTS _includes)
  if(_dir)
    list(APPEND _flags "-I${_dir}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")

# Compiles `call` (an expression of qinfer::FormatLogLine); `expect` is the
# function the compiler must name, or "" when it must compile.
function(check call expect)
  string(MD5 _name "${call}")
  set(_src "${WORK}/${_name}.cc")
  file(WRITE "${_src}" "#include <chrono>\n#include <string>\n#include \"qinfer/core/logging.h\"\n"
                       "std::string F() { return qinfer::${call}; }\n")
  execute_process(COMMAND "${CXX}" ${_flags} "${_src}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _out)
  if(expect STREQUAL "")
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "${call} should compile:\n${_out}")
    endif()
  elseif(_rc EQUAL 0)
    message(FATAL_ERROR "${call} compiled; it should fail with ${expect}")
  elseif(NOT _out MATCHES "${expect}")
    message(FATAL_ERROR "${call} failed without naming ${expect}:\n${_out}")
  endif()
  message(STATUS "ok: ${call}")
endfunction()

check([[FormatLogLine("n=%d", std::string("x"))]] LogFormatConversionDoesNotFitTheArgumentType)
check([[FormatLogLine("s=%s", 5)]] LogFormatConversionDoesNotFitTheArgumentType)
check([[FormatLogLine("b=%d", true)]] LogFormatConversionDoesNotFitTheArgumentType)
check([[FormatLogLine("x=%d", 1.5)]] LogFormatConversionDoesNotFitTheArgumentType)
check([[FormatLogLine("t=%v", std::chrono::seconds(1))]] LogFormatConversionDoesNotFitTheArgumentType)
check([[FormatLogLine("a=%v b=%v", 1)]] LogFormatHasMoreConversionsThanArguments)
check([[FormatLogLine("a=%v", 1, 2)]] LogFormatHasMoreArgumentsThanConversions)
check([[FormatLogLine("a=%", 1)]] LogFormatConversionIsIncomplete)
check([[FormatLogLine("b=%v x=%.1f s=%s n=%d c=%v 100%%", true, 1.5, "s", 3, 'c')]] "")
