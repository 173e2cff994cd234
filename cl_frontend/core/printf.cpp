#include "core/printf.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <new>

namespace vkcl::cl {

namespace {

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool take(void* out, size_t n) {
    if (size_t(end - p) < n) return false;
    std::memcpy(out, p, n);
    p += n;
    return true;
  }
};

// One component of an integer argument as the conversion's length modifier sees it.
std::string format_int(const std::string& spec, char conv, const std::string& length,
                       uint64_t bits, uint32_t bytes) {
  bool is_signed = conv == 'd' || conv == 'i';
  long long s = 0;
  unsigned long long u = 0;
  if (length == "hh") {
    s = int8_t(bits);
    u = uint8_t(bits);
  } else if (length == "h") {
    s = int16_t(bits);
    u = uint16_t(bits);
  } else if (length == "l" || bytes == 8) {
    s = int64_t(bits);
    u = bits;
  } else {
    s = int32_t(bits);
    u = uint32_t(bits);
  }
  char buf[128];
  std::string c_spec = spec + "ll" + conv;
  if (conv == 'c') {
    c_spec = spec + "c";
    std::snprintf(buf, sizeof buf, c_spec.c_str(), int(uint8_t(bits)));
  } else if (is_signed) {
    std::snprintf(buf, sizeof buf, c_spec.c_str(), s);
  } else {
    std::snprintf(buf, sizeof buf, c_spec.c_str(), u);
  }
  return buf;
}

std::string format_float(const std::string& spec, char conv, uint64_t bits, uint32_t bytes) {
  double v;
  if (bytes == 8) {
    std::memcpy(&v, &bits, 8);
  } else {
    float f;
    uint32_t b = uint32_t(bits);
    std::memcpy(&f, &b, 4);
    v = f;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, (spec + conv).c_str(), v);
  return buf;
}

// Formats one record: |format| with its arguments read from |r|.
std::string format_record(const k2s::PrintfCall& call, Reader& r) {
  std::string out;
  const std::string& f = call.format;
  size_t next_arg = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out += f[i];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    // %[flags][width][.precision][vector][length]conversion
    size_t j = i + 1;
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0", f[j])) spec += f[j++];
    while (j < f.size() && (std::isdigit(uint8_t(f[j])) || f[j] == '.')) spec += f[j++];
    uint32_t vector = 1;
    if (j < f.size() && f[j] == 'v') {
      ++j;
      vector = 0;
      while (j < f.size() && std::isdigit(uint8_t(f[j]))) vector = vector * 10 + uint32_t(f[j++] - '0');
    }
    std::string length;
    while (j < f.size() && (f[j] == 'h' || f[j] == 'l')) length += f[j++];
    if (j >= f.size()) break;
    char conv = f[j];
    i = j;
    if (next_arg >= call.args.size()) break;  // the compiler checked the format; be safe anyway
    const k2s::PrintfArg& arg = call.args[next_arg++];
    if (conv == 's' || arg.kind == k2s::PrintfArg::String) {
      char buf[4096];
      std::snprintf(buf, sizeof buf, (spec + "s").c_str(), arg.text.c_str());
      out += buf;
      continue;
    }
    uint32_t count = std::max<uint32_t>(arg.components, 1);
    for (uint32_t c = 0; c < count; ++c) {
      uint64_t bits = 0;
      if (!r.take(&bits, arg.component_bytes)) return out;
      if (c) out += ',';
      if (conv == 'p') {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%p", reinterpret_cast<void*>(uintptr_t(bits)));
        out += buf;
      } else if (arg.kind == k2s::PrintfArg::Float || std::strchr("fFeEgGaA", conv)) {
        out += format_float(spec, std::strchr("fFeEgGaA", conv) ? conv : 'f', bits, arg.component_bytes);
      } else {
        out += format_int(spec, conv, length, bits, arg.component_bytes);
      }
    }
    (void)vector;
  }
  return out;
}

}  // namespace

std::string format_printf_buffer(const uint8_t* buffer, const std::vector<k2s::PrintfCall>& calls) {
  uint32_t used, capacity;
  std::memcpy(&used, buffer, 4);
  std::memcpy(&capacity, buffer + 4, 4);
  Reader r{buffer + 8, buffer + 8 + std::min(used, capacity)};
  std::string out;
  while (r.p < r.end) {
    uint32_t index;
    const uint8_t* start = r.p;
    if (!r.take(&index, 4) || index >= calls.size()) break;
    // A record that would run past the capacity was not written.
    if (size_t(r.end - start) < calls[index].record_bytes) break;
    out += format_record(calls[index], r);
    r.p = start + calls[index].record_bytes;
  }
  return out;
}

std::shared_ptr<vk::Buffer> take_printf_buffer(const std::shared_ptr<vk::Device>& device, uint64_t owner,
                                               size_t bytes, VkResult* result) {
  std::unique_ptr<vk::Buffer> buffer;
  *result = vk::Buffer::create(device, bytes, vk::MemoryPlacement::HostVisible, &buffer, /*reusable=*/true,
                               owner | vk::kInternalOwner);
  if (*result != VK_SUCCESS) return nullptr;
  if (!buffer->mapped()) {
    *result = VK_ERROR_MEMORY_MAP_FAILED;
    return nullptr;
  }
  uint32_t header[2] = {0, uint32_t(kPrintfBufferSize)};
  std::memcpy(buffer->mapped(), header, sizeof header);
  return buffer;
}

PrintfOutput::~PrintfOutput() {
  if (!buffer_ || !buffer_->mapped()) return;
  // A destructor must not throw: without the memory to format it, the output is lost.
  try {
    std::string text = format_printf_buffer(static_cast<const uint8_t*>(buffer_->mapped()), calls_);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } catch (const std::bad_alloc&) {
  }
}

}  // namespace vkcl::cl
