#include "exporter/common/file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace podwait {

bool ReadWholeFile(const std::string& path, std::string* text, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::strerror(errno);
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    *error = "read error";
    return false;
  }
  *text = buf.str();
  return true;
}

namespace {

std::string TooLarge(size_t max_bytes) {
  return "larger than the limit of " + std::to_string(max_bytes >> 20) + " MiB";
}

}  // namespace

bool ReadStreamLimited(std::istream& in, size_t max_bytes, std::string* text, std::string* error) {
  text->clear();
  constexpr size_t kChunk = 1 << 20;
  while (in) {
    const size_t old = text->size();
    const size_t want = std::min(kChunk, max_bytes + 1 - old);
    text->resize(old + want);
    in.read(text->data() + old, static_cast<std::streamsize>(want));
    text->resize(old + static_cast<size_t>(in.gcount()));
    if (text->size() > max_bytes) {
      text->clear();
      text->shrink_to_fit();
      *error = TooLarge(max_bytes);
      return false;
    }
  }
  if (in.bad()) {
    *error = "read error";
    return false;
  }
  return true;
}

bool ReadFileLimited(const std::string& path, size_t max_bytes, std::string* text,
                     std::string* error) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > max_bytes) {
    *error = TooLarge(max_bytes) + " (" + std::to_string(st.st_size >> 20) + " MiB)";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::strerror(errno);
    return false;
  }
  return ReadStreamLimited(in, max_bytes, text, error);
}

}  // namespace podwait
