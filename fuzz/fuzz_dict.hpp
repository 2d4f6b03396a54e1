// Gives every fuzz target its dictionary (fuzz/*.dict: nesting, sizes and number edge cases)
// unless the command line names one: libFuzzer reads its flags after LLVMFuzzerInitialize, so an
// added "-dict=..." argument counts as if the user had typed it. GPURT_FUZZ_DICT is the
// dictionary's path (fuzz/CMakeLists.txt).
#pragma once

#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp((*argv)[i], "-dict=", 6) == 0) return 0;
  }
  static std::vector<char*> args;
  static char dict[] = "-dict=" GPURT_FUZZ_DICT;
  args.assign(*argv, *argv + *argc);
  args.push_back(dict);
  args.push_back(nullptr);
  *argc = static_cast<int>(args.size()) - 1;
  *argv = args.data();
  return 0;
}
