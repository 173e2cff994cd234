// Host <-> buffer copies for host commands. Callers hold the queue and have synchronised it;
// non-host-visible storage goes through a staging buffer on the queue's stream.
#pragma once

#include "core/memory.h"
#include "core/queue.h"

namespace vkcl::cl {

cl_int read_from_buffer(Queue& queue, Mem& mem, size_t offset, size_t size, void* dst);
cl_int write_to_buffer(Queue& queue, Mem& mem, size_t offset, size_t size, const void* src);

}  // namespace vkcl::cl
