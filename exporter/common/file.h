#pragma once

// Whole-file reads: kubeconfigs, token files, CA bundles, `explain` dumps.

#include <cstddef>
#include <istream>
#include <string>

#include "exporter/common/result.h"

namespace podwait {

// The whole file at `path`, or why not (strerror of the open, or "read error").
Result<std::string> ReadWholeFile(const std::string& path);

// All of `in`, or of the file at `path`, but never more than max_bytes: a larger input (a huge
// dump, /dev/zero) is refused with an error naming the limit, before it can exhaust memory. A
// regular file is refused by its size without reading it.
Result<std::string> ReadStreamLimited(std::istream& in, size_t max_bytes);
Result<std::string> ReadFileLimited(const std::string& path, size_t max_bytes);

}  // namespace podwait
