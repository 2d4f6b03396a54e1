# The runtime layer's partition backends; included from src/CMakeLists.txt after
# gpurt_layer(runtime ...). Paths are relative to src/. CUDA parts only with GPURT_HAVE_CUDA;
# without it the *_none.cpp files make every GPU call fail with "built without CUDA".
target_sources(gpurt_runtime PRIVATE gpurt/runtime/amd_cu_mask.cpp gpurt/runtime/partition_common.cpp)
target_link_libraries(gpurt_runtime PUBLIC ${CMAKE_DL_LIBS} rt)
if(GPURT_HAVE_CUDA)
  target_sources(gpurt_runtime PRIVATE gpurt/runtime/partition_cuda.cpp gpurt/runtime/gpu_probe.cu
    gpurt/runtime/fft_job.cpp gpurt/runtime/fft_interfere.cu)
  target_compile_definitions(gpurt_runtime PUBLIC GPURT_HAVE_CUDA=1)
  # cuFFT for the FFT job (FFT/SMLP Algorithm 1).
  target_link_libraries(gpurt_runtime PUBLIC CUDA::cudart_static CUDA::cufft)
else()
  target_sources(gpurt_runtime PRIVATE gpurt/runtime/partition_none.cpp gpurt/runtime/gpu_probe_none.cpp
    gpurt/runtime/fft_job_none.cpp)
endif()
# HIP (hipExtStreamCreateWithCUMask) only where a HIP compiler exists; none does on the CI machine.
include(CheckLanguage)
check_language(HIP)
if(CMAKE_HIP_COMPILER)
  message(STATUS "gpurt: HIP compiler found; the HIP CU-mask backend is not written yet")
endif()
install(FILES gpurt/runtime/pinning.cuh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpurt/runtime)
