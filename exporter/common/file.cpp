#include "exporter/common/file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace podwait {

Result<std::string> ReadWholeFile(const std::string& path) {
  using R = Result<std::string>;
  std::ifstream in(path, std::ios::binary);
  if (!in) return R::Fail(std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return R::Fail("read error");
  return R::Ok(std::move(buf).str());
}

namespace {

std::string TooLarge(size_t max_bytes) {
  return "larger than the limit of " + std::to_string(max_bytes >> 20) + " MiB";
}

}  // namespace

Result<std::string> ReadStreamLimited(std::istream& in, size_t max_bytes) {
  using R = Result<std::string>;
  std::string text;
  constexpr size_t kChunk = 1 << 20;
  while (in) {
    const size_t old = text.size();
    const size_t want = std::min(kChunk, max_bytes + 1 - old);
    text.resize(old + want);
    in.read(text.data() + old, static_cast<std::streamsize>(want));
    text.resize(old + static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) return R::Fail(TooLarge(max_bytes));
  }
  if (in.bad()) return R::Fail("read error");
  return R::Ok(std::move(text));
}

Result<std::string> ReadFileLimited(const std::string& path, size_t max_bytes) {
  using R = Result<std::string>;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > max_bytes) {
    return R::Fail(TooLarge(max_bytes) + " (" + std::to_string(st.st_size >> 20) + " MiB)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return R::Fail(std::strerror(errno));
  return ReadStreamLimited(in, max_bytes);
}

}  // namespace podwait
