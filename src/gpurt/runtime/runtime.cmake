# The runtime layer's partition backends; included from src/CMakeLists.txt after
# gpurt_layer(runtime ...). Paths are relative to src/.
target_link_libraries(gpurt_runtime PUBLIC ${CMAKE_DL_LIBS} rt)
