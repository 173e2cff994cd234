#include "compiler/cache.h"

#include "vkcl/common/byte_stream.h"

#include <dirent.h>
#include <link.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <condition_variable>
#include <iterator>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <tuple>

namespace vkcl::compiler::cache {
namespace {

constexpr char kMagic[8] = {'V', 'K', 'C', 'L', 'C', 'C', '0', '1'};

// 64 bits from |seed|, eight bytes a step (byte by byte, FNV-1a, the checksum of a cold
// process's precompiled header was a twentieth of its first build); the shift brings the
// high bits of each product back down, which multiplying alone never does.
uint64_t hash(const void* data, size_t size, uint64_t seed = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const uint8_t*>(data);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    seed = (seed ^ word) * 0x9e3779b97f4a7c15ull;
    seed ^= seed >> 32;
  }
  for (; i < size; ++i) seed = (seed ^ p[i]) * 0x100000001b3ull;
  return seed;
}
uint64_t hash(const std::string& s, uint64_t seed) { return hash(s.data(), s.size(), seed); }

}  // namespace

std::string library_identity(const void* address) {
  // The loaded object whose segments hold |address| (dladdr also looks for the nearest symbol:
  // most of a millisecond in clang's library).
  struct Search {
    uintptr_t address;
    std::string path;
    bool found = false;
  } search{reinterpret_cast<uintptr_t>(address)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
          if (segment.p_type != PT_LOAD || s->address < start ||
              s->address >= start + segment.p_memsz)
            continue;
          s->path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
          s->found = true;
          return 1;
        }
        return 0;
      },
      &search);
  if (!search.found) return "unknown";
  std::string id = search.path;
  struct stat st{};
  if (stat(search.path.c_str(), &st) == 0)
    id += ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  return id;
}

namespace {

bool read_file(const std::string& path, std::string* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  bool ok = fstat(fd, &st) == 0;
  out->clear();
  // The size as a hint (a file may change while it is read): to the end, whatever it is.
  out->resize(ok ? size_t(st.st_size) + 1 : 0);
  size_t have = 0;
  while (ok) {
    if (have == out->size()) out->resize(out->size() * 2 + 4096);
    const ssize_t n = read(fd, out->data() + have, out->size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    have += size_t(n);
  }
  close(fd);
  out->resize(have);
  return ok;
}

// The hash of the file at |path|. Every build reads the same headers from disk (clang's
// opencl-c-base.h among them): a file whose identity, size and modification time are those
// hashed before is not read again.
bool file_hash(const std::string& path, uint64_t* out) {
  struct Known {
    dev_t device;
    ino_t inode;
    off_t size;
    timespec modified;
    uint64_t hash;
  };
  static std::mutex mutex;
  static std::map<std::string, Known> known;
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = known.find(path);
    if (it != known.end() && it->second.device == st.st_dev && it->second.inode == st.st_ino &&
        it->second.size == st.st_size && it->second.modified.tv_sec == st.st_mtim.tv_sec &&
        it->second.modified.tv_nsec == st.st_mtim.tv_nsec) {
      *out = it->second.hash;
      return true;
    }
  }
  std::string contents;
  if (!read_file(path, &contents)) return false;
  *out = hash(contents, 0xcbf29ce484222325ull);
  // A file modified within the clock's resolution of this read could change again without
  // its time changing: not remembered.
  const time_t now = std::time(nullptr);
  if (now - st.st_mtim.tv_sec < 2) return true;
  std::lock_guard<std::mutex> lock(mutex);
  known[path] = {st.st_dev, st.st_ino, st.st_size, st.st_mtim, *out};
  return true;
}

uint64_t size_limit() {
  const char* limit_text = std::getenv("VKCL_CACHE_MAX_MB");
  return (limit_text ? std::strtoull(limit_text, nullptr, 10) : 1024) << 20;
}

// The folder's size as last counted plus what was written since, in ".size" (a hint, shared
// by the processes using the folder without a lock: a lost update is corrected at the next
// prune). Counting on every write would stat every entry: 9000 entries cost a first build
// ~15 ms.
uint64_t read_tally(const std::string& dir) {
  std::string text;
  return read_file(dir + "/.size", &text) ? std::strtoull(text.c_str(), nullptr, 10) : UINT64_MAX;
}

void write_tally(const std::string& dir, uint64_t total) {
  const std::string temporary = dir + "/.size." + std::to_string(getpid());
  std::ofstream(temporary, std::ios::trunc) << total;
  if (std::rename(temporary.c_str(), (dir + "/.size").c_str()) != 0) std::remove(temporary.c_str());
}

// Keeps the folder under $VKCL_CACHE_MAX_MB (default 1024): the least recently used entries
// go first, down to three quarters of the limit. Returns the size left.
uint64_t prune(const std::string& dir, uint64_t limit) {
  std::vector<std::tuple<int64_t, uint64_t, std::string>> entries;  // (mtime ns, size, path)
  uint64_t total = 0;
  if (DIR* d = opendir(dir.c_str())) {
    const int64_t hour_ago = int64_t(time(nullptr)) - 3600;
    while (dirent* e = readdir(d)) {
      std::string path = dir + "/" + e->d_name;
      struct stat st{};
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (e->d_name[0] == '.') {
        // A temporary file an hour old was left by a process that ended while writing it.
        if (std::string(e->d_name) != ".size" && st.st_mtim.tv_sec < hour_ago) std::remove(path.c_str());
        continue;
      }
      entries.emplace_back(int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, uint64_t(st.st_size), path);
      total += uint64_t(st.st_size);
    }
    closedir(d);
  }
  if (total <= limit) return total;
  std::sort(entries.begin(), entries.end());
  for (const auto& [when, size, path] : entries) {
    if (total <= limit / 4 * 3) break;
    if (std::remove(path.c_str()) == 0) total -= size;
  }
  return total;
}

// After an entry of |size| bytes was written: the tally grows, and the folder is counted (and
// pruned) when the tally passes the limit or is missing.
void account(const std::string& dir, uint64_t size, uint64_t limit) {
  uint64_t tally = read_tally(dir);
  tally = tally == UINT64_MAX || tally + size > limit ? prune(dir, limit) : tally + size;
  write_tally(dir, tally);
}

}  // namespace

std::string folder() {
  const char* off = std::getenv("VKCL_CACHE");
  if (off && std::string(off) == "0") return "";
  if (const char* dir = std::getenv("VKCL_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/vkcl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/vkcl";
  return "";
}

std::string key(const std::vector<std::string>& parts) {
  static const std::string identity = library_identity(reinterpret_cast<const void*>(&key));
  uint64_t a = hash(identity, 0xcbf29ce484222325ull), b = hash(identity, 0x84222325cbf29ce4ull);
  for (const std::string& p : parts) {
    // The length first, so that ("ab", "c") and ("a", "bc") differ.
    uint64_t n = p.size();
    a = hash(p, hash(&n, 8, a));
    b = hash(p, hash(&n, 8, b));
  }
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
  return text;
}

namespace {
std::optional<std::string> pending_entry(const std::string& path);
}  // namespace

std::optional<std::string> read_blob(const std::string& k) {
  const std::string dir = folder();
  if (dir.empty()) return std::nullopt;
  std::string bytes;
  if (std::optional<std::string> on_the_way = pending_entry(dir + "/" + k))
    bytes = std::move(*on_the_way);
  else if (!read_file(dir + "/" + k, &bytes))
    return std::nullopt;
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, 8) != 0) return std::nullopt;
  uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + 8, 8);
  std::string payload = bytes.substr(16);
  if (hash(payload.data(), payload.size()) != sum) return std::nullopt;
  utimensat(AT_FDCWD, (dir + "/" + k).c_str(), nullptr, 0);  // recently used: pruned last
  return payload;
}

std::optional<CompileResult> lookup(const std::string& k) {
  std::optional<std::string> blob = read_blob(k);
  if (!blob) return std::nullopt;
  const std::string& payload = *blob;
  ByteReader r{payload};
  // The files the source read from disk, unchanged?
  for (uint32_t n = r.u32(); r.ok && n > 0; --n) {
    std::string path = r.str();
    uint64_t want = r.u64(), have = 0;
    if (!r.ok || !file_hash(path, &have) || have != want) return std::nullopt;
  }
  CompileResult c;
  c.ok = true;
  c.from_cache = true;
  c.language_version = int(r.u32());
  c.uniform_work_group_size = r.u32() != 0;
  c.log = r.str();
  c.spirv.resize(r.count(4));
  for (uint32_t& w : c.spirv) w = r.u32();
  c.kernels.resize(r.count(12));  // two strings and a count
  for (KernelInfo& kernel : c.kernels) {
    kernel.name = r.str();
    kernel.attributes = r.str();
    kernel.args.resize(r.count(24));  // two strings, two u32, a u64
    for (KernelArgInfo& a : kernel.args) {
      a.name = r.str();
      a.type_name = r.str();
      a.address_qualifier = r.u32();
      a.access_qualifier = r.u32();
      a.type_qualifier = r.u64();
    }
  }
  if (!r.done()) return std::nullopt;
  return c;
}

void store(const std::string& k, const CompileResult& c, const std::vector<std::string>& files) {
  const std::string dir = folder();
  if (dir.empty() || !c.ok) return;
  ByteWriter w;
  std::vector<std::pair<std::string, uint64_t>> read;
  for (const std::string& path : files) {
    uint64_t h = 0;
    if (!file_hash(path, &h)) return;  // cannot vouch for it next time
    read.emplace_back(path, h);
  }
  w.u32(uint32_t(read.size()));
  for (const auto& [path, h] : read) {
    w.str(path);
    w.u64(h);
  }
  w.u32(uint32_t(c.language_version));
  w.u32(c.uniform_work_group_size ? 1 : 0);
  w.str(c.log);
  w.u32(uint32_t(c.spirv.size()));
  for (uint32_t word : c.spirv) w.u32(word);
  w.u32(uint32_t(c.kernels.size()));
  for (const KernelInfo& kernel : c.kernels) {
    w.str(kernel.name);
    w.str(kernel.attributes);
    w.u32(uint32_t(kernel.args.size()));
    for (const KernelArgInfo& a : kernel.args) {
      w.str(a.name);
      w.str(a.type_name);
      w.u32(a.address_qualifier);
      w.u32(a.access_qualifier);
      w.u64(a.type_qualifier);
    }
  }
  write_blob(k, w.bytes);
}

namespace {

// Writes |entry| as |dir|/|k|: mkdir -p, then write beside the entry and rename over it, so
// readers see all or nothing.
void write_entry(const std::string& dir, const std::string& k, const std::string& entry,
                 uint64_t limit) {
  for (size_t slash = dir.find('/', 1); ; slash = dir.find('/', slash + 1)) {
    mkdir(dir.substr(0, slash).c_str(), 0755);
    if (slash == std::string::npos) break;
  }
  static std::atomic<uint32_t> counter{0};
  const std::string temporary = dir + "/." + k + "." + std::to_string(getpid()) + "." +
                                std::to_string(counter++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(entry.data(), std::streamsize(entry.size()));
    if (!out) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), (dir + "/" + k).c_str()) != 0) std::remove(temporary.c_str());
  account(dir, entry.size(), limit);
}

// Entries reach the disk from a thread of their own, so a build does not wait for the file
// system (two entries per build: 0.9 of 6 ms on lavapipe's machine). Entries on their way
// are read from memory; the thread ends a second after the last, and the process waits for
// the writing at exit. A forked child drops what its parent had on the way (the parent
// writes it).
class Writer {
 public:
  Writer() {
    pthread_atfork([] { get().mutex_.lock(); }, [] { get().mutex_.unlock(); },
                   [] {
                     Writer& w = get();
                     w.pending_.clear();
                     w.running_ = w.writing_ = false;
                     w.mutex_.unlock();
                   });
  }

  static Writer& get() {
    static Writer* writer = new Writer;  // never destroyed: its thread may outlive statics
    started = true;
    return *writer;
  }
  static inline std::atomic<bool> started{false};

  void put(const std::string& path, const std::string& dir, const std::string& k,
           std::string entry) {
    std::unique_lock<std::mutex> lock(mutex_);
    pending_[path] = {dir, k, std::move(entry), size_limit(), ++serial_};
    if (running_) {
      work_.notify_one();
      return;
    }
    try {
      std::thread([this] { run(); }).detach();
      running_ = true;
    } catch (const std::system_error&) {
      run_here(lock);  // no thread: written now
    }
  }

  std::optional<std::string> find(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(path);
    if (it == pending_.end()) return std::nullopt;
    return it->second.entry;
  }

  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return pending_.empty() && !writing_; });
  }

 private:
  struct Entry {
    std::string dir, k, entry;
    uint64_t limit;  // the folder's limit, read by the caller (a getenv on this thread could
                     // race an application's setenv)
    uint64_t serial;  // tells a rewritten entry from the one being written
  };

  // Stays a second for more (a program's entries come in twos and threes, builds in bursts).
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    do {
      run_here(lock);
      idle_.notify_all();
    } while (work_.wait_for(lock, std::chrono::seconds(1), [this] { return !pending_.empty(); }));
    running_ = false;
  }

  // Writes entries until none is left; |lock| is held on entry and on return.
  void run_here(std::unique_lock<std::mutex>& lock) {
    while (!pending_.empty()) {
      auto it = pending_.begin();
      Entry e = it->second;  // stays findable until it is on disk
      const std::string path = it->first;
      writing_ = true;
      lock.unlock();
      write_entry(e.dir, e.k, e.entry, e.limit);
      lock.lock();
      writing_ = false;
      if (auto now = pending_.find(path); now != pending_.end() && now->second.serial == e.serial)
        pending_.erase(now);
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, idle_;
  std::map<std::string, Entry> pending_;  // by path
  uint64_t serial_ = 0;
  bool running_ = false, writing_ = false;
};

// Waits at exit for the entries on their way.
struct FlushAtExit {
  ~FlushAtExit() {
    if (Writer::started) Writer::get().flush();
  }
} flush_at_exit;

std::optional<std::string> pending_entry(const std::string& path) {
  return Writer::started ? Writer::get().find(path) : std::nullopt;
}

std::string entry_of(const std::string& bytes) {
  std::string entry(kMagic, 8);
  uint64_t sum = hash(bytes.data(), bytes.size());
  entry.append(reinterpret_cast<const char*>(&sum), 8);
  return entry += bytes;
}

}  // namespace

void write_blob(const std::string& k, const std::string& bytes) {
  const std::string dir = folder();
  if (dir.empty()) return;
  Writer::get().put(dir + "/" + k, dir, k, entry_of(bytes));
}

void remove_blob(const std::string& k) {
  const std::string dir = folder();
  if (!dir.empty()) std::remove((dir + "/" + k).c_str());
}

void flush() { Writer::get().flush(); }

}  // namespace vkcl::compiler::cache
