#pragma once

// Whole-file reads: kubeconfigs, token files, CA bundles, `explain` dumps.

#include <cstddef>
#include <istream>
#include <string>

namespace podwait {

// Reads the whole file at `path` into *text. On failure returns false with *error saying why
// (strerror of the open, or "read error").
bool ReadWholeFile(const std::string& path, std::string* text, std::string* error);

// Reads all of `in`, or of the file at `path`, into *text, but never more than max_bytes: a
// larger input (a huge dump, /dev/zero) is refused with *error naming the limit, before it can
// exhaust memory. A regular file is refused by its size without reading it.
bool ReadStreamLimited(std::istream& in, size_t max_bytes, std::string* text, std::string* error);
bool ReadFileLimited(const std::string& path, size_t max_bytes, std::string* text,
                     std::string* error);

}  // namespace podwait
