// Buffers and images in a context of several devices: each device where a command used one
// has a copy (Copies, core/memory.h; Image::others, core/image.h), made at that first use. A
// command that uses one first makes its device's copy current; a copy that is not is brought
// up to date from one that is, through the host a block at a time, when the command is
// recorded or run (buffers per byte range, images whole).
// The application's events order the commands of different devices that use one buffer, and
// a command waits on the host for another device's (core/queue.cpp), so the copy read is final
// by then. A command that may write the buffer leaves its device's copy the only current one.
#pragma once

#include "core/memory.h"
#include "core/queue.h"

namespace vkcl::cl {

// Makes |mem|'s copy on |queue|'s device current (nothing in a context of one device); with
// |writes|, the only current one. CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED's migration passes
// |keep_contents| false: the copy becomes current without a copy.
cl_int use_on(Queue& queue, Mem& mem, bool writes, bool keep_contents = true);

}  // namespace vkcl::cl
