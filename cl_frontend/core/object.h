// Base of every CL object: the ICD dispatch pointer first (the loader requires it), a magic
// word and kind for handle validation, and an intrusive atomic reference count.
#pragma once

#include <CL/cl_icd.h>

#include <atomic>
#include <cstdint>
#include <utility>

namespace vkcl::cl {

enum class ObjectKind : uint32_t {
  Platform, Device, Context, Queue, Mem, Program, Kernel, Event, Sampler, CommandBuffer, Semaphore,
  MutableCommand
};

// The dispatch table every object points to; filled in icd/dispatch.cpp.
extern cl_icd_dispatch g_dispatch_table;

inline constexpr uint32_t kObjectMagic = 0x766b636c;  // "vkcl"

// Every live object's address and kind (core/object.cpp), so that validating a handle never
// reads through a pointer that is not one: a released object's, or a pointer to anything
// else an application passed (a pointer to an int as a cl_mem was read past its end).
void register_object(const void* object, ObjectKind kind);
void unregister_object(const void* object);
bool is_live_object(const void* object, ObjectKind kind);

// Objects are the `_cl_*` structs themselves, so a handle is the object's address and the
// dispatch pointer sits at offset 0 (no virtual functions anywhere in the hierarchy):
//   struct _cl_context : vkcl::cl::Object<_cl_context, vkcl::cl::ObjectKind::Context> {...};
//   namespace vkcl::cl { using Context = _cl_context; }
template <typename Derived, ObjectKind Kind>
class Object {
 public:
  static constexpr ObjectKind kKind = Kind;
  Object() { register_object(this, Kind); }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  // Validation steps two and three (step one, null, is the caller's): our dispatch pointer
  // and magic, then the right kind.
  bool is_valid() const {
    return dispatch_ == &g_dispatch_table && magic_ == kObjectMagic && kind_ == Kind;
  }
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Retains unless the count already reached zero (the object is being deleted).
  bool try_retain() {
    uint32_t n = refs_.load(std::memory_order_relaxed);
    while (n != 0)
      if (refs_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return true;
    return false;
  }
  // Deletes the object when the last reference goes.
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      magic_ = 0;
      delete static_cast<Derived*>(this);
    }
  }
  uint32_t reference_count() const { return refs_.load(std::memory_order_relaxed); }

 protected:
  ~Object() { unregister_object(this); }

 private:
  cl_icd_dispatch* dispatch_ = &g_dispatch_table;  // must stay the first member
  uint32_t magic_ = kObjectMagic;
  ObjectKind kind_ = Kind;
  std::atomic<uint32_t> refs_{1};
};

// Returns |handle| as its object if it passes the three validation steps, else nullptr.
template <typename T>
T* validate(T* handle) {
  if (handle == nullptr || !is_live_object(handle, T::kKind) || !handle->is_valid()) return nullptr;
  return handle;
}

// An owning reference to a CL object (internal references are held this way, never by raw
// retain/release pairs).
template <typename T>
class Ref {
 public:
  Ref() = default;
  // Adopts |p| without retaining (for a freshly created object with count 1).
  static Ref adopt(T* p) { Ref r; r.p_ = p; return r; }
  // Retains |p|.
  explicit Ref(T* p) : p_(p) { if (p_) p_->retain(); }
  Ref(const Ref& o) : p_(o.p_) { if (p_) p_->retain(); }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref& operator=(Ref o) { std::swap(p_, o.p_); return *this; }
  ~Ref() { if (p_) p_->release(); }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Gives up ownership (to hand a new object to the application).
  T* release_to_api() { return std::exchange(p_, nullptr); }

 private:
  T* p_ = nullptr;
};

}  // namespace vkcl::cl
