// Anchors libgpurt, which otherwise holds only the layer archives.
namespace gpurt {
extern "C" const char* gpurt_version() { return "0.1.0"; }
}  // namespace gpurt
