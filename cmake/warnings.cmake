# Warning flags for every gpurt target; GPURT_WERROR turns them into errors (CI does).
add_library(gpurt_warnings INTERFACE)
target_compile_options(gpurt_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
     -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPURT_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPURT_WERROR}>>:-Werror=all-warnings>)
install(TARGETS gpurt_warnings EXPORT gpurtTargets)
