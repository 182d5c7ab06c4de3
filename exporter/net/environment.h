#pragma once

// The seams between podwait and the world outside the process (docs/DESIGN.md §7): time, HTTP,
// the process environment and subprocesses, in one struct handed to what needs them. Production
// code takes the defaults; tests replace a member (a FakeClock, a scripted HTTP client, a fake
// environment).

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "exporter/common/clock.h"
#include "exporter/common/subprocess.h"
#include "exporter/net/async_http.h"
#include "exporter/net/http_client.h"

namespace podwait {

using HttpClientFactory = std::function<std::unique_ptr<HttpClient>()>;
// Reads an environment variable.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
using SubprocessRunner = std::function<SubprocessResult(const SubprocessSpec&)>;

// The process's own environment (getenv).
EnvLookup ProcessEnv();

struct Environment {
  const Clock* clock = &SystemClock::Instance();  // must outlive the users
  HttpClientFactory http = MakeCurlHttpClient;    // one client per thread: clients are not shared
  EnvLookup env = ProcessEnv();
  SubprocessRunner run = RunSubprocess;
  // Many requests at once on one thread (the PD prober). A test that replaces `http` for such a
  // user replaces this too (tests/support/blocking_async_http.h adapts a blocking client).
  AsyncHttpFactory async_http = MakeCurlMultiHttp;
};

}  // namespace podwait
