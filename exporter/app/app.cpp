#include "exporter/app/app.h"

#include <chrono>

#include "exporter/common/log.h"
#include "exporter/metrics/exposition.h"
#include "exporter/metrics/process_collector.h"

namespace podwait {

App::App(Config config, const Clock& clock) : config_(std::move(config)), clock_(clock) {
  collectables_.push_back(self_metrics_.registry());
  collectables_.push_back(std::make_shared<ProcessCollector>());
}

App::~App() { Stop(); }

void App::InstallHandlers() {
  server_.Handle(config_.telemetry_path, [this](const HttpServerRequest&) {
    const int64_t start = clock_.MonotonicMs();
    HttpServerReply reply;
    reply.content_type = kTextContentType;
    reply.body = RenderText(collectables_);
    reply.compressible = true;
    self_metrics_.ScrapeDuration().Observe(static_cast<double>(clock_.MonotonicMs() - start) /
                                           1000);
    return reply;
  });
  server_.Handle("/healthz", [](const HttpServerRequest&) {
    HttpServerReply reply;
    reply.body = "ok\n";
    return reply;
  });
  server_.Handle("/readyz", [this](const HttpServerRequest&) {
    HttpServerReply reply;
    if (sync_.AllSynced()) {
      reply.body = "ready\n";
    } else {
      reply.status = 503;
      reply.body = "not ready: waiting for the first sync of:";
      for (const auto& [name, synced] : sync_.Snapshot()) {
        if (!synced) reply.body += " " + name;
      }
      reply.body += "\n";
    }
    return reply;
  });
}

bool App::Start(std::string* error) {
  InstallHandlers();
  if (!server_.Start(config_.listen_address, error)) return false;
  started_ = true;
  LogInfo("listening", {{"address", config_.listen_address},
                        {"port", std::to_string(server_.port())},
                        {"telemetry_path", config_.telemetry_path}});
  return true;
}

void App::Stop() {
  if (!started_) return;
  started_ = false;
  server_.Stop();
}

}  // namespace podwait
