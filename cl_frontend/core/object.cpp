#include "core/object.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace vkcl::cl {
namespace {

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<const void*, ObjectKind> live;
};

// Never destroyed: applications release objects from atexit handlers and static destructors,
// after this file's statics would be gone.
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

void register_object(const void* object, ObjectKind kind) {
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  r.live[object] = kind;
}

void unregister_object(const void* object) {
  Registry& r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  r.live.erase(object);
}

bool is_live_object(const void* object, ObjectKind kind) {
  Registry& r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  auto it = r.live.find(object);
  return it != r.live.end() && it->second == kind;
}

}  // namespace vkcl::cl
