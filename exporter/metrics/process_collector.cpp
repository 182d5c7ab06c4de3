#include "exporter/metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "exporter/metrics/family_builder.h"

namespace podwait {
namespace {

double BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime") {
      in >> value;
      return value;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}

int CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory handle itself
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> out;
  std::ifstream stat_file("/proc/self/stat");
  std::string stat;
  std::getline(stat_file, stat);
  // Fields after the command name, which is in parentheses and may contain spaces.
  auto close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return out;
  std::istringstream fields(stat.substr(close_paren + 2));
  std::vector<std::string> f;
  std::string tok;
  while (fields >> tok) f.push_back(tok);
  // f[0] is field 3 (state); utime=14, stime=15, starttime=22, vsize=23, rss=24 (1-based).
  if (f.size() < 22) return out;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double utime = std::stod(f[11]);
  const double stime = std::stod(f[12]);
  const double start = std::stod(f[19]);
  const double vsize = std::stod(f[20]);
  const double rss = std::stod(f[21]);

  FamilyBuilder(metric::kProcessCpuSeconds).Add({}, (utime + stime) / ticks).MoveTo(&out);
  FamilyBuilder(metric::kProcessResidentMemory).Add({}, rss * page).MoveTo(&out);
  FamilyBuilder(metric::kProcessVirtualMemory).Add({}, vsize).MoveTo(&out);
  FamilyBuilder(metric::kProcessStartTime).Add({}, BootTimeSeconds() + start / ticks).MoveTo(&out);
  const int fds = CountOpenFds();
  if (fds >= 0) {
    FamilyBuilder(metric::kProcessOpenFds).Add({}, fds).MoveTo(&out);
  }
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    FamilyBuilder(metric::kProcessMaxFds).Add({}, static_cast<double>(lim.rlim_cur)).MoveTo(&out);
  }
  return out;
}

}  // namespace podwait
