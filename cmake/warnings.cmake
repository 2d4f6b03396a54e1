# Warning flags for every gpurt target; GPURT_WERROR turns them into errors (CI does).
add_library(gpurt_warnings INTERFACE)
target_compile_options(gpurt_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
     -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPURT_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPURT_WERROR}>>:-Werror=all-warnings>)
if(GPURT_SANITIZE)
  # Under the sanitizers' instrumentation GCC 12 reports std::regex's own std::function members
  # (tests/trace/test_chart.cpp) as maybe uninitialized when optimizing (libstdc++ headers, not
  # gpurt code). make sanitize compiles the tests at -O0, where it does not fire; this keeps a
  # sanitizer build at -O1 or above building. The release build, which CI also compiles with
  # -Werror, keeps the warning.
  target_compile_options(gpurt_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
endif()
install(TARGETS gpurt_warnings EXPORT gpurtTargets)
