// The end of Vulkan use at process exit. An application may release its CL objects from an
// atexit handler or a static destructor it registered before its first CL call; those run
// after the static destructors of the Vulkan loader, layers and driver, which were loaded
// later (the validation layer's handle maps, for one, are gone by then). So vkcl registers
// its own handler after each device creation, which runs before their teardown: it submits
// every stream's pending commands, waits for every device, and from then on vk_backend makes
// no Vulkan call; what is released later is dropped with the process.
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

#include "exit.h"

namespace vkcl::vk {

namespace {

std::atomic<bool> g_usable{true};

// Never destroyed: streams and devices leave it from destructors that may run at exit.
struct Live {
  std::mutex mutex;
  std::set<Device*> devices;
  std::set<CommandStream*> streams;
};
Live& live() {
  static Live* objects = new Live();
  return *objects;
}

void finish_vulkan_work() {
  Live& l = live();
  std::lock_guard<std::mutex> lock(l.mutex);
  // Registered once per device: the first call (the latest registration) does the work.
  if (!g_usable.load()) return;
  for (CommandStream* s : l.streams) (void)s->submit({}, nullptr);
  for (Device* d : l.devices) {
    std::lock_guard<std::mutex> queue(d->queue_mutex());
    vkDeviceWaitIdle(d->handle());
  }
  g_usable.store(false);
}

}  // namespace

bool vulkan_usable() { return g_usable.load(std::memory_order_acquire); }

namespace detail {

void track_device(Device* device, bool alive) {
  {
    std::lock_guard<std::mutex> lock(live().mutex);
    if (alive) live().devices.insert(device);
    else live().devices.erase(device);
  }
  // After the device's creation, so after anything the loader, layers and driver set up for
  // it: the handler runs before their teardown.
  if (alive) std::atexit(finish_vulkan_work);
}

void track_stream(CommandStream* stream, bool alive) {
  std::lock_guard<std::mutex> lock(live().mutex);
  if (alive) live().streams.insert(stream);
  else live().streams.erase(stream);
}

}  // namespace detail
}  // namespace vkcl::vk
