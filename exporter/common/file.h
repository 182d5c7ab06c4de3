#pragma once

// Whole-file reads: kubeconfigs, token files, CA bundles, `explain` dumps.

#include <string>

namespace podwait {

// Reads the whole file at `path` into *text. On failure returns false with *error saying why
// (strerror of the open, or "read error").
bool ReadWholeFile(const std::string& path, std::string* text, std::string* error);

}  // namespace podwait
