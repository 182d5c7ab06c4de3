#include "tests/support/stack.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "exporter/net/http_client.h"

namespace podwait::testing {

std::vector<Sample> ParseExposition(const std::string& text) {
  std::vector<Sample> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        if (eq == std::string::npos) break;
        std::string key = line.substr(i, eq - i);
        std::string value;
        size_t j = eq + 2;  // skip ="
        while (j < line.size() && line[j] != '"') {
          if (line[j] == '\\' && j + 1 < line.size()) {
            char c = line[++j];
            value += c == 'n' ? '\n' : c;
          } else {
            value += line[j];
          }
          ++j;
        }
        s.labels[key] = value;
        i = j + 1;
        if (i < line.size() && line[i] == ',') ++i;
      }
      ++i;  // '}'
    }
    while (i < line.size() && line[i] == ' ') ++i;
    s.value = std::strtod(line.c_str() + i, nullptr);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Sample> FindSamples(const std::string& text, const std::string& name,
                                const std::map<std::string, std::string>& match) {
  std::vector<Sample> out;
  for (auto& s : ParseExposition(text)) {
    if (s.name != name) continue;
    bool ok = true;
    for (const auto& [k, v] : match) {
      auto it = s.labels.find(k);
      if (it == s.labels.end() || it->second != v) {
        ok = false;
        break;
      }
    }
    if (ok) out.push_back(std::move(s));
  }
  return out;
}

double SampleValue(const std::string& text, const std::string& name,
                   const std::map<std::string, std::string>& match) {
  auto found = FindSamples(text, name, match);
  return found.size() == 1 ? found[0].value : NAN;
}

SimAndExporter::SimAndExporter(const std::string& scenario, std::vector<std::string> exporter_flags,
                               bool start_exporter, std::vector<std::string> sim_flags)
    : exporter_flags_(std::move(exporter_flags)) {
  const std::string port_file = MakeTempDir() + "/sim.port";
  sim_flags.insert(sim_flags.begin(),
                   {BinaryPath("podwait-sim"), "--listen", "127.0.0.1:0", "--port-file", port_file,
                    "--scenario", SourcePath(scenario), "--manual", "--bookmark-interval", "1s"});
  sim_ = std::make_unique<Subprocess>(std::move(sim_flags));
  WaitFor(
      [&] {
        std::ifstream in(port_file);
        return static_cast<bool>(in >> sim_port_) && sim_port_ > 0;
      },
      std::chrono::seconds(20));
  if (start_exporter) StartExporter();
}

void SimAndExporter::StartExporter() {
  exporter_port_ = FreePort();
  std::vector<std::string> args = {
      BinaryPath("podwait-exporter"),
      "--web.listen-address=127.0.0.1:" + std::to_string(exporter_port_), "--pd.interval=1s",
      "--log.level=debug"};
  if (pd_template_) {
    args.push_back("--pd.url-template=http://127.0.0.1:" + std::to_string(sim_port_) +
                   "/pd/{namespace}/{cluster}");
  }
  const bool kubeconfig =
      std::any_of(exporter_flags_.begin(), exporter_flags_.end(),
                  [](const std::string& f) { return f.rfind("--kubeconfig", 0) == 0; });
  if (!kubeconfig) args.push_back("--kube.api-url=http://127.0.0.1:" + std::to_string(sim_port_));
  args.insert(args.end(), exporter_flags_.begin(), exporter_flags_.end());
  exporter_ = std::make_unique<Subprocess>(args);
  WaitFor([&] { return HttpGet(exporter_port_, "/healthz").status == 200; },
          std::chrono::seconds(20));
}

int SimAndExporter::SimPost(const std::string& path, const std::string& body) {
  return HttpPost(sim_port_, path, body.empty() ? "{}" : body);
}

std::string SimAndExporter::Scrape() { return HttpGet(exporter_port_, "/metrics").body; }

bool SimAndExporter::ScrapeUntil(const std::function<bool(const std::string&)>& pred,
                                 double seconds, std::string* last) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  std::string text;
  while (true) {
    text = Scrape();
    if (pred(text)) {
      if (last) *last = text;
      return true;
    }
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (last) *last = text;
  return false;
}

}  // namespace podwait::testing
