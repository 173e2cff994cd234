// The on-disk cache of compiled programs: clang's and SPIRV-LLVM-Translator's work for one
// (source, options, device features, headers) is kept in a file named by a hash of all of it
// and of the vkcl library itself, so a program built again, in this process or a later one,
// skips the compiler. Files the source #included from disk are recorded with a hash of their
// contents and checked on every hit.
//
// Where: $VKCL_CACHE_DIR, else $XDG_CACHE_HOME/vkcl, else $HOME/.cache/vkcl. VKCL_CACHE=0
// turns it off; it is kept under $VKCL_CACHE_MAX_MB (default 1024, least recently used entries
// removed first). Entries are written by a thread of their own (see flush) to a temporary
// file and renamed into place, so concurrent processes see whole entries or none; an entry that does not read back whole
// (bad magic, checksum, truncated) is a miss and is replaced.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"

namespace vkcl::compiler::cache {

// The folder in use, or empty when the cache is off.
std::string folder();

// The shared library (or program) holding |address|: its path, size and modification time,
// so that a rebuilt library never reads what an older one wrote.
std::string library_identity(const void* address);

// The entry's key: a hash of |parts| (the compiler's arguments, the source, in-memory headers)
// and of the library that holds this code.
std::string key(const std::vector<std::string>& parts);

// The cached result for |key| when there is an intact entry whose recorded files are unchanged.
std::optional<CompileResult> lookup(const std::string& key);

// Keeps |result| (only successful compiles are kept) with the files it read from disk.
void store(const std::string& key, const CompileResult& result, const std::vector<std::string>& files);

// Other small things kept beside compiled programs (the precision probe's findings): |bytes|
// under |key|, checksummed; read_blob gives them back whole or not at all.
std::optional<std::string> read_blob(const std::string& key);
void write_blob(const std::string& key, const std::string& bytes);
void remove_blob(const std::string& key);

// Entries reach the disk from a background thread (read back from memory until then); this
// waits until those handed over so far are written. The process waits for them at exit.
void flush();

}  // namespace vkcl::compiler::cache
