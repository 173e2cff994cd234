// Little length-prefixed records for the build cache's entries (compiled programs, translations):
// ByteWriter appends, ByteReader reads back and turns |ok| false, rather than reading past the
// end, on anything cut short or claiming more than is there.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace vkcl {

struct ByteWriter {
  std::string bytes;
  void u32(uint32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); }
  void u64(uint64_t v) { bytes.append(reinterpret_cast<const char*>(&v), 8); }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    bytes += s;
  }
  void words(const std::vector<uint32_t>& w) {
    u32(uint32_t(w.size()));
    bytes.append(reinterpret_cast<const char*>(w.data()), w.size() * 4);
  }
};

struct ByteReader {
  const std::string& bytes;
  size_t at = 0;
  bool ok = true;
  uint32_t u32() { return read<uint32_t>(); }
  uint64_t u64() { return read<uint64_t>(); }
  // A count of records of at least |size| bytes each that the rest can hold.
  uint32_t count(size_t size) {
    uint32_t n = u32();
    if (!ok || n > (bytes.size() - at) / size) return ok = false, 0;
    return n;
  }
  std::string str() {
    uint32_t n = count(1);
    std::string s = ok ? bytes.substr(at, n) : std::string();
    at += ok ? n : 0;
    return s;
  }
  std::vector<uint32_t> words() {
    std::vector<uint32_t> w(count(4));
    if (!w.empty()) std::memcpy(w.data(), bytes.data() + at, w.size() * 4);
    at += w.size() * 4;
    return w;
  }
  bool done() const { return ok && at == bytes.size(); }

 private:
  template <typename T>
  T read() {
    T v{};
    if (!ok || at + sizeof(T) > bytes.size()) return ok = false, T{};
    std::memcpy(&v, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
};

}  // namespace vkcl
