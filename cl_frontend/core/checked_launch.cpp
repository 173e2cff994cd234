#include "core/checked_launch.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/device.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::cl {

namespace {
// Table layout: kernel_to_shader/passes/checked_memory.cpp.
constexpr size_t kEntriesOffset = 96;

// |objects| as the kernel searches them: sorted, overlaps merged (sub-buffers, a buffer
// passed twice), then the nearest neighbours merged until they fit.
std::vector<std::pair<uint64_t, uint64_t>> search_list(const std::vector<CheckedObject>& objects) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const CheckedObject& o : objects)
    if (o.end > o.begin) ranges.emplace_back(o.begin, o.end);
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> merged;
  for (const auto& r : ranges)
    if (!merged.empty() && r.first <= merged.back().second) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  while (merged.size() > k2s::kCheckTableEntries) {
    size_t closest = 0;
    for (size_t k = 1; k + 1 < merged.size(); ++k)
      if (merged[k + 1].first - merged[k].second < merged[closest + 1].first - merged[closest].second) closest = k;
    merged[closest].second = merged[closest + 1].second;
    merged.erase(merged.begin() + closest + 1);
  }
  return merged;
}

uint32_t word_at(const uint8_t* table, size_t at) {
  uint32_t v;
  std::memcpy(&v, table + at, 4);
  return v;
}

// "offset 4108 (12 bytes past the end) of X of 4096 bytes", relative to argument |argument|
// where the access's pointer came from it, else to the object nearest |where|.
std::string relative(const std::vector<CheckedObject>& objects, uint64_t where, uint32_t bytes,
                     uint32_t argument) {
  const CheckedObject* best = nullptr;
  uint64_t best_distance = UINT64_MAX;
  for (const CheckedObject& o : objects) {
    uint64_t d = where < o.begin ? o.begin - where : where >= o.end ? where - o.end : 0;
    if (o.argument == argument && argument != UINT32_MAX) d = 0;
    if (d < best_distance || (d == best_distance && o.argument == argument)) best = &o, best_distance = d;
  }
  if (!best) return "no object the launch may reach";
  char text[128];
  uint64_t size = best->end - best->begin;
  if (where < best->begin)
    std::snprintf(text, sizeof text, "%" PRIu64 " bytes before the start of ", best->begin - where);
  else if (where >= best->end)
    std::snprintf(text, sizeof text, "offset %" PRIu64 " (%" PRIu64 " bytes past the end) of ",
                  where - best->begin, where - best->end);
  else
    std::snprintf(text, sizeof text, "offset %" PRIu64 " (its last %" PRIu64 " bytes are short of %u) of ",
                  where - best->begin, best->end - where, bytes);
  return text + best->name + " of " + std::to_string(size) + " bytes";
}
}  // namespace

bool checked_mode() {
  const char* v = std::getenv("VKCL_CHECKED");
  return v && std::strcmp(v, "1") == 0;
}

Result<std::shared_ptr<CheckReport>> CheckReport::create(const std::shared_ptr<vk::Device>& device,
                                                         Launch launch) {
  std::shared_ptr<CheckReport> r(new CheckReport());
  size_t bytes = kEntriesOffset + 3 * 16 * k2s::kCheckTableEntries;
  VkResult v = vk::Buffer::create(device, bytes, vk::MemoryPlacement::HostVisible, &r->table_);
  if (v != VK_SUCCESS) return Error{cl_error_from(v, CL_OUT_OF_RESOURCES)};
  auto* table = static_cast<uint8_t*>(r->table_->mapped());
  std::memset(table, 0, bytes);
  uint8_t* entries = table + kEntriesOffset;
  for (const auto* objects : {&launch.global, &launch.local}) {
    std::vector<std::pair<uint64_t, uint64_t>> list = search_list(*objects);
    list.resize(k2s::kCheckTableEntries, {~uint64_t(0), 0});
    for (const auto& [begin, end] : list) {
      std::memcpy(entries, &begin, 8);
      std::memcpy(entries + 8, &end, 8);
      entries += 16;
    }
  }
  for (const auto* objects : {&launch.global, &launch.local})
    for (const CheckedObject& o : *objects) {
      if (o.argument >= k2s::kCheckTableEntries) continue;
      std::memcpy(entries + 16 * o.argument, &o.begin, 8);
      std::memcpy(entries + 16 * o.argument + 8, &o.end, 8);
    }
  r->launch_ = std::move(launch);
  return r;
}

std::string CheckReport::describe(uint32_t code, uint64_t where, uint32_t bytes, uint32_t failed) const {
  uint32_t site = code / 4, space = code % 4;
  std::string what = site < launch_.sites.size() ? launch_.sites[site] : "an access";
  uint32_t argument = site < launch_.site_arguments.size() ? launch_.site_arguments[site] : UINT32_MAX;
  std::string object;
  char at[64];
  if (space == 0) {
    std::snprintf(at, sizeof at, "global address 0x%" PRIx64, where);
    object = relative(launch_.global, where, bytes, argument);
  } else if (space == 1) {
    std::snprintf(at, sizeof at, "local memory offset %" PRIu64, where);
    object = relative(launch_.local, where, bytes, argument) + " (the launch has " +
             std::to_string(launch_.local_bytes) + " bytes of local memory)";
  } else {
    std::snprintf(at, sizeof at, "private memory offset %" PRIu64, where);
    object = "past the end of the work-item's " + std::to_string(launch_.private_bytes) + " bytes of private memory";
  }
  return "vkcl: kernel " + launch_.kernel + ": out-of-bounds access of " + std::to_string(bytes) +
         " bytes (" + what + ") at " + at + ": " + object + "; " + std::to_string(failed) +
         " access(es) failed and none happened; the command fails with CL_OUT_OF_RESOURCES\n";
}

cl_int CheckReport::command_status() {
  std::call_once(read_, [&] {
    if (!table_) return;  // never made (its creation failed): nothing ran
    const auto* table = static_cast<const uint8_t*>(table_->mapped());
    if (word_at(table, 8) == 0) return;
    uint64_t where;
    std::memcpy(&where, table + 16, 8);
    status_ = CL_OUT_OF_RESOURCES;
    std::string message = describe(word_at(table, 12), where, word_at(table, 24), word_at(table, 28));
    std::fputs(message.c_str(), stderr);
    std::fflush(stderr);
  });
  return status_;
}

CheckReport::~CheckReport() {
  // The command has completed by now: a launch whose event nobody asked about still reports
  // (unless there is no memory to write the report: a destructor must not throw).
  try {
    (void)command_status();
  } catch (const std::bad_alloc&) {
  }
}

}  // namespace vkcl::cl
