# The runtime layer's partition backends; included from src/CMakeLists.txt after
# gpurt_layer(runtime ...). Paths are relative to src/. CUDA parts only with GPURT_HAVE_CUDA;
# without it the *_none.cpp files make every GPU call fail with "built without CUDA".
target_sources(gpurt_runtime PRIVATE gpurt/runtime/amd_cu_mask.cpp gpurt/runtime/amd_hip.cpp
  gpurt/runtime/partition_common.cpp)
# The PBS table dispatcher (PBS seed §4.1) is plain host code; GPU work goes through its
# launcher interface, so it is built everywhere.
target_sources(gpurt_runtime PRIVATE gpurt/runtime/pbs_dispatch.cpp)
target_link_libraries(gpurt_runtime PUBLIC ${CMAKE_DL_LIBS} rt)
if(GPURT_HAVE_CUDA)
  target_sources(gpurt_runtime PRIVATE gpurt/runtime/partition_cuda.cpp gpurt/runtime/gpu_probe.cu
    gpurt/runtime/fft_job.cpp gpurt/runtime/fft_interfere.cu gpurt/runtime/pbs_gpu.cpp
    gpurt/runtime/pbs_gpu_kernel.cu)
  target_compile_definitions(gpurt_runtime PUBLIC GPURT_HAVE_CUDA=1)
  # cuFFT for the FFT job (FFT/SMLP Algorithm 1).
  target_link_libraries(gpurt_runtime PUBLIC CUDA::cudart CUDA::cufft)
else()
  target_sources(gpurt_runtime PRIVATE gpurt/runtime/partition_none.cpp gpurt/runtime/gpu_probe_none.cpp
    gpurt/runtime/fft_job_none.cpp gpurt/runtime/pbs_gpu_none.cpp)
endif()
# The AMD backend (hipExtStreamCreateWithCUMask) loads the HIP runtime with dlopen at run time
# (amd_hip.cpp): it needs no HIP compiler, so it is built everywhere.
install(FILES gpurt/runtime/pinning.cuh DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpurt/runtime)
