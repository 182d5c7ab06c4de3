#include "exporter/common/file.h"

#include <cerrno>
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

}  // namespace podwait
