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

  FamilyBuilder("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                prometheus::MetricType::Counter)
      .Add({}, (utime + stime) / ticks)
      .MoveTo(&out);
  FamilyBuilder("process_resident_memory_bytes", "Resident memory size in bytes.",
                prometheus::MetricType::Gauge)
      .Add({}, rss * page)
      .MoveTo(&out);
  FamilyBuilder("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                prometheus::MetricType::Gauge)
      .Add({}, vsize)
      .MoveTo(&out);
  FamilyBuilder("process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                prometheus::MetricType::Gauge)
      .Add({}, BootTimeSeconds() + start / ticks)
      .MoveTo(&out);
  const int fds = CountOpenFds();
  if (fds >= 0) {
    FamilyBuilder("process_open_fds", "Number of open file descriptors.",
                  prometheus::MetricType::Gauge)
        .Add({}, fds)
        .MoveTo(&out);
  }
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    FamilyBuilder("process_max_fds", "Maximum number of open file descriptors.",
                  prometheus::MetricType::Gauge)
        .Add({}, static_cast<double>(lim.rlim_cur))
        .MoveTo(&out);
  }
  return out;
}

}  // namespace podwait
