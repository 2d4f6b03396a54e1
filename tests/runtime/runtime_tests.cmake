# Runtime layer tests (locks, partition backends); included from tests/CMakeLists.txt.
gpurt_test(test_runtime_locks runtime/test_lock_api.cpp runtime/test_lock_stress.cpp
           runtime/test_lock_robust.cpp runtime/test_kx.cpp runtime/test_shm_header.cpp
           runtime/test_lock_wake.cpp)
gpurt_test(test_runtime_partition runtime/test_amd_cu_mask.cpp runtime/test_amd_hip.cpp
           runtime/test_gpu_partition.cpp runtime/test_fft_job.cpp)
# The PBS table dispatcher with a fake launcher: timing on the host clock, no GPU.
gpurt_test(test_runtime_pbs runtime/test_pbs_dispatch.cpp)

# The C header from a C compiler, through the include path users get (<gpurt/gpurt.h>).
include(CheckLanguage)
check_language(C)
if(CMAKE_C_COMPILER)
  enable_language(C)
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/c_include/gpurt)
  configure_file(${PROJECT_SOURCE_DIR}/src/gpurt/runtime/gpurt.h ${CMAKE_CURRENT_BINARY_DIR}/c_include/gpurt/gpurt.h
                 COPYONLY)
  add_executable(c_api_smoke runtime/c_api_smoke.c)
  set_target_properties(c_api_smoke PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_include_directories(c_api_smoke PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/c_include)
  target_compile_options(c_api_smoke PRIVATE -Wall -Wextra -Wpedantic $<$<BOOL:${GPURT_WERROR}>:-Werror>)
  target_link_libraries(c_api_smoke PRIVATE gpurt)
  add_test(NAME runtime.c_api_smoke COMMAND c_api_smoke)
endif()

# The C API through ctypes (dlopen), as docs/runtime.md shows. Not under sanitizers: their
# runtimes must be loaded first, which a Python process does not do.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND AND NOT GPURT_SANITIZE)
  add_test(NAME runtime.c_api_ctypes
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/runtime/c_api_ctypes.py $<TARGET_FILE:gpurt>)
endif()
