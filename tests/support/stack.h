#pragma once

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace podwait::testing {

// One sample of a Prometheus text exposition.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = NAN;
};
std::vector<Sample> ParseExposition(const std::string& text);
// The samples named `name` whose labels include every pair of `match`.
std::vector<Sample> FindSamples(const std::string& text, const std::string& name,
                                const std::map<std::string, std::string>& match = {});
// The value of the only such sample; NaN when there is none (or several).
double SampleValue(const std::string& text, const std::string& name,
                   const std::map<std::string, std::string>& match = {});

// The simulator and the exporter on loopback: podwait-sim (--manual, so the test drives the
// timeline) with a scenario, and podwait-exporter watching it. Both are killed on destruction.
class SimAndExporter {
 public:
  // `scenario` is a path relative to the source tree; extra flags go to the exporter (which is
  // pointed at the simulator with --kube.api-url unless they hold a --kubeconfig) and to the
  // simulator.
  explicit SimAndExporter(const std::string& scenario, std::vector<std::string> exporter_flags = {},
                          bool start_exporter = true, std::vector<std::string> sim_flags = {});
  void StartExporter();
  // Before StartExporter(): do not point the exporter's --pd.url-template at the simulator (so a
  // tidb-operator v2 Cluster's status.pd, or the template's default, decides).
  void WithoutPdTemplate() { pd_template_ = false; }

  int sim_port() const { return sim_port_; }
  int exporter_port() const { return exporter_port_; }
  Subprocess& exporter() { return *exporter_; }
  Subprocess& sim() { return *sim_; }

  // POST to the simulator's control API; returns the HTTP status.
  int SimPost(const std::string& path, const std::string& body = "");
  std::string Scrape();
  // Polls /metrics until `pred(text)` holds or `seconds` pass; returns the last scrape.
  bool ScrapeUntil(const std::function<bool(const std::string&)>& pred, double seconds,
                   std::string* last = nullptr);

 private:
  std::vector<std::string> exporter_flags_;
  bool pd_template_ = true;
  int sim_port_ = 0;
  int exporter_port_ = 0;
  std::unique_ptr<Subprocess> sim_;
  std::unique_ptr<Subprocess> exporter_;
};

}  // namespace podwait::testing
