#include "exporter/http/tls_context.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "exporter/common/file.h"
#include "exporter/common/log.h"
#include "exporter/http/web_config.h"

// Debian bookworm's libcivetweb1 (1.15) loads OpenSSL at run time by the names "libssl.so" and
// "libcrypto.so" and looks up the OpenSSL 1.1 names of its functions; OpenSSL 3 renamed one of
// them (SSL_get_peer_certificate is a macro for SSL_get1_peer_certificate now), so civetweb's TLS
// would not start. The binaries that link podwait_http carry the soname "libssl.so" (see
// CMakeLists.txt): civetweb's dlopen("libssl.so") then returns the program itself, whose
// dependencies are the real libssl.so.3 and libcrypto.so.3, and this definition supplies the
// missing name. Same semantics: a new reference the caller frees.
#undef SSL_get_peer_certificate
extern "C" X509* SSL_get_peer_certificate(const SSL* ssl) { return SSL_get1_peer_certificate(ssl); }

namespace podwait {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct ChainFree {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct NamesFree {
  void operator()(STACK_OF(X509_NAME) * s) const { sk_X509_NAME_pop_free(s, X509_NAME_free); }
};

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no PEM data found";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// The PEM text of an inline value, or of the file when it was not read yet (LoadWebConfig reads
// the files into the inline fields).
bool Pem(const std::string& inline_pem, const std::string& file, const char* field,
         std::string* pem, std::string* error) {
  if (file.empty() || !inline_pem.empty()) {
    *pem = inline_pem;
    return true;
  }
  Result<std::string> read = ReadWholeFile(file);
  if (!read.ok()) {
    *error = std::string("failed to read ") + field + " (" + file + "): " + read.error;
    return false;
  }
  *pem = std::move(*read);
  return true;
}

std::vector<std::unique_ptr<X509, X509Free>> ReadCerts(const std::string& pem) {
  std::vector<std::unique_ptr<X509, X509Free>> certs;
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) certs.emplace_back(x);
  ERR_clear_error();  // the end of the data reads as an error
  return certs;
}

struct KeyPair {
  std::unique_ptr<X509, X509Free> leaf;
  std::unique_ptr<STACK_OF(X509), ChainFree> chain;
  std::unique_ptr<EVP_PKEY, KeyFree> key;
};

bool LoadKeyPair(const TlsServerConfig& tls, KeyPair* out, std::string* error) {
  std::string cert_pem, key_pem;
  if (!Pem(tls.cert, tls.cert_file, "cert_file", &cert_pem, error) ||
      !Pem(tls.key, tls.key_file, "key_file", &key_pem, error)) {
    return false;
  }
  auto certs = ReadCerts(cert_pem);
  if (certs.empty()) {
    *error = "failed to load X509KeyPair: no certificate in " +
             (tls.cert_file.empty() ? std::string("cert") : tls.cert_file);
    return false;
  }
  std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    *error = "failed to load X509KeyPair: no private key in " +
             (tls.key_file.empty() ? std::string("key") : tls.key_file) + " (" + OpenSslError() +
             ")";
    return false;
  }
  if (X509_check_private_key(certs[0].get(), key.get()) != 1) {
    ERR_clear_error();
    *error = "failed to load X509KeyPair: private key does not match public key";
    return false;
  }
  out->chain.reset(sk_X509_new_null());
  for (size_t i = 1; i < certs.size(); ++i) sk_X509_push(out->chain.get(), certs[i].release());
  out->leaf = std::move(certs[0]);
  out->key = std::move(key);
  return true;
}

struct ClientCas {
  std::unique_ptr<X509_STORE, StoreFree> store;
  std::unique_ptr<STACK_OF(X509_NAME), NamesFree> names;
};

// Loads the client CA; *out stays empty when none is configured.
bool LoadClientCas(const TlsServerConfig& tls, ClientCas* out, std::string* error) {
  if (tls.client_ca_file.empty() && tls.client_ca.empty()) return true;
  std::string pem;
  if (!Pem(tls.client_ca, tls.client_ca_file, "client_ca_file", &pem, error)) return false;
  auto certs = ReadCerts(pem);
  if (certs.empty()) {
    *error = "no certificate in " +
             (tls.client_ca_file.empty() ? std::string("client_ca") : tls.client_ca_file);
    return false;
  }
  out->store.reset(X509_STORE_new());
  out->names.reset(sk_X509_NAME_new_null());
  for (auto& c : certs) {
    X509_STORE_add_cert(out->store.get(), c.get());
    sk_X509_NAME_push(out->names.get(), X509_NAME_dup(X509_get_subject_name(c.get())));
  }
  return true;
}

bool Verifies(ClientAuth a) {
  return a == ClientAuth::kVerifyClientCertIfGiven || a == ClientAuth::kRequireAndVerifyClientCert;
}

// What the verify callback needs of the connection's config.
struct ConnectionPolicy {
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  std::vector<std::string> allowed_sans;
};

int PolicyIndex() {
  static const int index = SSL_get_ex_new_index(
      0, nullptr, nullptr, nullptr, [](void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
        delete static_cast<ConnectionPolicy*>(ptr);
      });
  return index;
}

std::string AsnText(const ASN1_STRING* s) {
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<size_t>(ASN1_STRING_length(s)));
}

// Every DNS, e-mail, IP and URI subject alternative name of `cert`, as Go's x509 gives them.
std::vector<std::string> SubjectAltNames(X509* cert) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS || n->type == GEN_EMAIL || n->type == GEN_URI) {
      out.push_back(AsnText(n->d.ia5));
    } else if (n->type == GEN_IPADD) {
      char buf[INET6_ADDRSTRLEN] = {};
      const int len = ASN1_STRING_length(n->d.iPAddress);
      const int family = len == 4 ? AF_INET : len == 16 ? AF_INET6 : 0;
      if (family != 0 &&
          inet_ntop(family, ASN1_STRING_get0_data(n->d.iPAddress), buf, sizeof(buf)) != nullptr) {
        out.emplace_back(buf);
      }
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

int VerifyPeer(int preverify_ok, X509_STORE_CTX* store) {
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  const auto* policy =
      ssl ? static_cast<const ConnectionPolicy*>(SSL_get_ex_data(ssl, PolicyIndex())) : nullptr;
  if (policy == nullptr) return 0;
  // RequestClientCert and RequireAnyClientCert take any certificate without checking it.
  int ok = Verifies(policy->client_auth) ? preverify_ok : 1;
  if (ok && !policy->allowed_sans.empty() && X509_STORE_CTX_get_error_depth(store) == 0) {
    const auto sans = SubjectAltNames(X509_STORE_CTX_get_current_cert(store));
    ok = std::any_of(sans.begin(), sans.end(), [&](const std::string& s) {
      return std::find(policy->allowed_sans.begin(), policy->allowed_sans.end(), s) !=
             policy->allowed_sans.end();
    });
    if (!ok) LogDebug("client certificate has none of client_allowed_sans");
  }
  return ok;
}

}  // namespace

namespace {

bool CheckTls(const TlsServerConfig& tls, std::string* error) {
  if (!tls.enabled()) return true;
  if (tls.cert_file.empty() && tls.cert.empty()) {
    *error = "missing one of cert or cert_file";
    return false;
  }
  if (tls.key_file.empty() && tls.key.empty()) {
    *error = "missing one of key or key_file";
    return false;
  }
  KeyPair pair;
  if (!LoadKeyPair(tls, &pair, error)) return false;
  ClientCas cas;
  if (!LoadClientCas(tls, &cas, error)) return false;
  if (cas.store && tls.client_auth == ClientAuth::kNoClientCert) {
    *error = "client CA's have been configured without a Client Auth Policy";
    return false;
  }
  if (!tls.client_allowed_sans.empty() && tls.client_auth != ClientAuth::kRequireAnyClientCert &&
      tls.client_auth != ClientAuth::kRequireAndVerifyClientCert) {
    *error =
        "client_allowed_sans requires client_auth_type to be one of RequireAnyClientCert or "
        "RequireAndVerifyClientCert";
    return false;
  }
  if (tls.min_version > tls.max_version) {
    *error = "min_version is above max_version";
    return false;
  }
  return true;
}

}  // namespace

Result<bool> CheckTlsConfig(const TlsServerConfig& tls) {
  std::string error;
  if (!CheckTls(tls, &error)) return Result<bool>::Fail(std::move(error));
  return Result<bool>::Ok(true);
}

Result<std::unique_ptr<TlsContext>> TlsContext::Create(WebConfigSource* source) {
  using R = Result<std::unique_ptr<TlsContext>>;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return R::Fail("cannot create a TLS context: " + OpenSslError());
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
  // Without a client CA, verification falls back to the system's roots, as Go's does.
  SSL_CTX_set_default_verify_paths(ctx);
  std::unique_ptr<TlsContext> self(new TlsContext(source, ctx));
  SSL_CTX_set_client_hello_cb(ctx, &TlsContext::OnClientHello, self.get());
  return R::Ok(std::move(self));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

// Called for each new connection before the version is chosen: everything that the toolkit takes
// from the config file per connection is set on this SSL from the current config.
int TlsContext::OnClientHello(SSL* ssl, int* alert, void* self_ptr) {
  auto* self = static_cast<TlsContext*>(self_ptr);
  std::string error;
  std::shared_ptr<const WebConfig> config = self->source_->Current();
  KeyPair pair;
  ClientCas cas;
  if (!LoadKeyPair(config->tls, &pair, &error) || !LoadClientCas(config->tls, &cas, &error)) {
    LogError("TLS handshake refused: the web config cannot be used",
             {{"file", self->source_->path()}, {"err", error}});
    *alert = SSL_AD_INTERNAL_ERROR;
    return SSL_CLIENT_HELLO_ERROR;
  }
  const TlsServerConfig& tls = config->tls;
  if (SSL_use_cert_and_key(ssl, pair.leaf.get(), pair.key.get(), pair.chain.get(), 1) != 1) {
    LogError("TLS handshake refused: cannot use the certificate", {{"err", OpenSslError()}});
    *alert = SSL_AD_INTERNAL_ERROR;
    return SSL_CLIENT_HELLO_ERROR;
  }
  SSL_set_min_proto_version(ssl, tls.min_version);
  SSL_set_max_proto_version(ssl, tls.max_version);
  if (!tls.cipher_suites.empty()) {
    std::string list;
    for (const auto& c : tls.cipher_suites) list += (list.empty() ? "" : ":") + c;
    SSL_set_cipher_list(ssl, list.c_str());
  }
  if (tls.prefer_server_cipher_suites) {
    SSL_set_options(ssl, SSL_OP_CIPHER_SERVER_PREFERENCE);
  } else {
    SSL_clear_options(ssl, SSL_OP_CIPHER_SERVER_PREFERENCE);
  }
  if (!tls.curve_preferences.empty()) {
    std::string list;
    for (const auto& c : tls.curve_preferences) list += (list.empty() ? "" : ":") + c;
    SSL_set1_groups_list(ssl, list.c_str());
  }
  int mode = SSL_VERIFY_NONE;
  switch (tls.client_auth) {
    case ClientAuth::kNoClientCert:
      break;
    case ClientAuth::kRequestClientCert:
    case ClientAuth::kVerifyClientCertIfGiven:
      mode = SSL_VERIFY_PEER;
      break;
    case ClientAuth::kRequireAnyClientCert:
    case ClientAuth::kRequireAndVerifyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      break;
  }
  if (cas.store) {
    SSL_set1_verify_cert_store(ssl, cas.store.get());
    SSL_set_client_CA_list(ssl, cas.names.release());
  }
  auto* policy = new ConnectionPolicy{tls.client_auth, tls.client_allowed_sans};
  delete static_cast<ConnectionPolicy*>(SSL_get_ex_data(ssl, PolicyIndex()));
  SSL_set_ex_data(ssl, PolicyIndex(), policy);
  SSL_set_verify(ssl, mode, mode == SSL_VERIFY_NONE ? nullptr : &VerifyPeer);
  ERR_clear_error();
  return SSL_CLIENT_HELLO_SUCCESS;
}

}  // namespace podwait
