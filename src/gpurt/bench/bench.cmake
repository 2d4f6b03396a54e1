# The bench layer's gpu backend; included from src/CMakeLists.txt after gpurt_layer(bench ...).
# Paths are relative to src/. Without CUDA, gpu_backend_none.cpp makes `--backend gpu` report
# "built without CUDA" (exit 2, no output).
if(GPURT_HAVE_CUDA)
  target_sources(gpurt_bench PRIVATE gpurt/bench/gpu_backend.cpp gpurt/bench/gpu_plugins.cpp
    gpurt/bench/gpu_plugins_data.cpp gpurt/bench/gpu_kernels.cu)
  target_link_libraries(gpurt_bench PUBLIC CUDA::cudart CUDA::cufft)
else()
  target_sources(gpurt_bench PRIVATE gpurt/bench/gpu_backend_none.cpp)
endif()
