#pragma once

// The OpenSSL context behind the HTTPS listener: the certificate, key, client CA, client-auth
// policy and TLS versions come from the web config on every new connection (as exporter-toolkit's
// GetConfigForClient), so a renewed certificate is served to the next client without a restart.

#include <memory>
#include <string>

#include "exporter/common/result.h"

struct ssl_ctx_st;
struct ssl_st;

namespace podwait {

struct TlsServerConfig;
class WebConfigSource;

// Checks that TLS settings can be used: cert and key load and match, the client CA loads, and the
// settings agree with each other (the toolkit's rules). Ok for a config without TLS.
Result<bool> CheckTlsConfig(const TlsServerConfig& tls);

class TlsContext {
 public:
  // REQUIRES: `source` outlives the context and its config has TLS enabled.
  static Result<std::unique_ptr<TlsContext>> Create(WebConfigSource* source);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  ssl_ctx_st* ctx() const { return ctx_; }

 private:
  TlsContext(WebConfigSource* source, ssl_ctx_st* ctx) : source_(source), ctx_(ctx) {}
  static int OnClientHello(ssl_st* ssl, int* alert, void* self);
  WebConfigSource* source_;
  ssl_ctx_st* ctx_;
};

}  // namespace podwait
