#include "exporter/kube/endpoint.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "exporter/common/file.h"
#include "exporter/common/log.h"
#include "exporter/kube/kubeconfig.h"

namespace podwait {
namespace {

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Where the kubeconfig named the file: "<kubeconfig>: <item> <path> cannot be read: <why>".
bool CheckReadable(const std::string& kubeconfig, const std::string& item, const std::string& path,
                   std::string* error) {
  if (path.empty() || access(path.c_str(), R_OK) == 0) return true;
  *error = kubeconfig + ": " + item + " " + path + " cannot be read: " + std::strerror(errno);
  return false;
}

// kubectl's --server: a URL, or host[:port] with the scheme client-go's DefaultServerURL gives
// it (https when TLS is configured: a CA, a client certificate or no verification; else http).
std::optional<std::string> ServerUrl(const std::string& server, const TlsOptions& tls,
                                     std::string* error) {
  std::string url = server;
  if (url.find("://") == std::string::npos) {
    const bool has_tls = !tls.ca_file.empty() || !tls.ca_pem.empty() || !tls.cert_file.empty() ||
                         !tls.cert_pem.empty() || tls.insecure_skip_verify;
    url = (has_tls ? "https://" : "http://") + url;
  }
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    *error = "--server \"" + server + "\" is not an http(s) URL";
    return std::nullopt;
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The credential, TLS and server flags laid over `ep`, with client-go's override rules
// (ResolveKubeEndpoint says which). False, with *error, when a file they name cannot be read or
// the result is half a client certificate.
bool ApplyOverrides(const KubeEndpointFlags& flags, KubeEndpoint* ep, std::string* error) {
  if (!flags.token.empty() || !flags.token_file.empty()) {
    ep->token = flags.token;
    ep->token_file = flags.token.empty() ? flags.token_file : "";
    ep->exec.reset();
  }
  TlsOptions& tls = ep->tls;
  if (!flags.client_certificate.empty()) {
    tls.cert_file = flags.client_certificate;
    tls.cert_pem.clear();
  }
  if (!flags.client_key.empty()) {
    tls.key_file = flags.client_key;
    tls.key_pem.clear();
  }
  if (!flags.ca_file.empty()) {
    tls.ca_file = flags.ca_file;
    tls.ca_pem.clear();
    tls.insecure_skip_verify = flags.insecure_skip_tls_verify;
  } else if (flags.insecure_skip_tls_verify) {
    tls.insecure_skip_verify = true;
    tls.ca_file.clear();
    tls.ca_pem.clear();
  }
  for (const auto& [flag, path] : {std::pair{"--client-certificate", flags.client_certificate},
                                   std::pair{"--client-key", flags.client_key}}) {
    if (!path.empty() && access(path.c_str(), R_OK) != 0) {
      *error = std::string(flag) + " " + path + " cannot be read: " + std::strerror(errno);
      return false;
    }
  }
  const bool cert = !tls.cert_file.empty() || !tls.cert_pem.empty();
  const bool key = !tls.key_file.empty() || !tls.key_pem.empty();
  if (cert != key) {
    *error = cert ? "a client certificate without a key: pass --client-key too"
                  : "a client key without a certificate: pass --client-certificate too";
    return false;
  }
  if (!flags.server.empty()) {
    std::optional<std::string> url = ServerUrl(flags.server, tls, error);
    if (!url) return false;
    ep->api_url = *url;
  }
  if (ep->api_url.empty()) {
    *error = "no server: the kubeconfig's cluster names none and --server is not given";
    return false;
  }
  return true;
}

// --kube.api-url (source "--kube.api-url") or kubectl's --server without a kubeconfig ("--server").
std::optional<KubeEndpoint> FromUrl(const KubeEndpointFlags& flags, const std::string& source,
                                    std::string* error) {
  KubeEndpoint ep;
  if (!flags.api_url.empty()) {
    const std::string& url = flags.api_url;
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      *error = "--kube.api-url must start with http:// or https://";
      return std::nullopt;
    }
    if (!flags.server.empty()) {
      *error = "--kube.api-url and --server both name the API server: pass one";
      return std::nullopt;
    }
    ep.api_url = url;
    while (!ep.api_url.empty() && ep.api_url.back() == '/') ep.api_url.pop_back();
  }
  ep.source = source;
  if (!ApplyOverrides(flags, &ep, error)) return std::nullopt;
  if (!flags.api_url.empty() && (!flags.kubeconfig.empty() || !flags.context.empty())) {
    ep.warnings.push_back("--kubeconfig and --kube.context are ignored: --kube.api-url is set");
  }
  return ep;
}

std::optional<KubeEndpoint> InCluster(const KubeEndpointFlags& flags, const std::string& host,
                                      const std::string& port, std::string* error) {
  KubeEndpoint ep;
  const bool ipv6 = host.find(':') != std::string::npos;
  ep.api_url = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  ep.token_file = kServiceAccountTokenFile;
  ep.tls.ca_file = kServiceAccountCaFile;
  ep.source = KubeEndpoint::kInClusterSource;
  if (!ApplyOverrides(flags, &ep, error)) return std::nullopt;
  return ep;
}

// What KUBERNETES_EXEC_INFO tells a plugin with provideClusterInfo about the cluster, once the
// flags are laid over it: its server, CA (a file read here) and verification.
bool FillExecClusterInfo(const std::string& path, const std::string& cluster, KubeEndpoint* ep,
                         std::string* error) {
  if (!ep->exec || !ep->exec->provide_cluster_info) return true;
  ep->exec->server = ep->api_url;
  ep->exec->insecure_skip_tls_verify = ep->tls.insecure_skip_verify;
  ep->exec->certificate_authority_pem = ep->tls.ca_pem;
  if (!ep->tls.ca_pem.empty() || ep->tls.ca_file.empty()) return true;
  Result<std::string> ca = ReadWholeFile(ep->tls.ca_file);
  if (!ca.ok()) {
    *error = path + ": " + cluster + " " + ep->tls.ca_file + " cannot be read: " + ca.error;
    return false;
  }
  ep->exec->certificate_authority_pem = std::move(*ca);
  return true;
}

// The endpoint of the kubeconfig at `path` (found through `source`), with the flags laid over
// it.
std::optional<KubeEndpoint> FromKubeconfig(const KubeEndpointFlags& flags, const std::string& path,
                                           const std::string& source, std::string* error) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    *error = "cannot read the kubeconfig " + path + " (" + source + "): " + text.error;
    return std::nullopt;
  }
  KubeconfigParse parsed = ParseKubeconfig(
      *text, path,
      KubeconfigChoice{flags.context, flags.cluster, flags.user, !flags.server.empty()});
  if (!parsed.ok()) {
    *error = parsed.error;
    return std::nullopt;
  }
  KubeEndpoint& ep = *parsed.value;
  ep.source = source;
  ep.kubeconfig = path;
  // The files the kubeconfig names that the flags do not replace must be readable.
  const std::string cluster = "certificate-authority of cluster \"" + ep.cluster + "\"";
  const std::string user = "of user \"" + ep.user + "\"";
  const bool own_ca = flags.ca_file.empty() && !flags.insecure_skip_tls_verify;
  const bool own_token = flags.token_file.empty() && flags.token.empty();
  if ((own_ca && !CheckReadable(path, cluster, ep.tls.ca_file, error)) ||
      (flags.client_certificate.empty() &&
       !CheckReadable(path, "client-certificate " + user, ep.tls.cert_file, error)) ||
      (flags.client_key.empty() &&
       !CheckReadable(path, "client-key " + user, ep.tls.key_file, error)) ||
      (own_token && !CheckReadable(path, "tokenFile " + user, ep.token_file, error))) {
    return std::nullopt;
  }
  if (!ApplyOverrides(flags, &ep, error)) return std::nullopt;
  if (!FillExecClusterInfo(path, cluster, &ep, error)) return std::nullopt;
  return std::move(parsed.value);
}

std::vector<std::string> SplitPathList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    if (colon > start) out.push_back(list.substr(start, colon - start));
    start = colon + 1;
  }
  return out;
}

}  // namespace

namespace {

std::optional<KubeEndpoint> Resolve(const KubeEndpointFlags& flags, const EnvLookup& env,
                                    std::string* error) {
  if (!flags.api_url.empty()) return FromUrl(flags, "--kube.api-url", error);
  if (!flags.kubeconfig.empty()) {
    return FromKubeconfig(flags, flags.kubeconfig, "--kubeconfig", error);
  }
  const std::string host = env("KUBERNETES_SERVICE_HOST").value_or("");
  const std::string port = env("KUBERNETES_SERVICE_PORT").value_or("");
  const bool wants_kubeconfig =
      !flags.context.empty() || !flags.cluster.empty() || !flags.user.empty();
  if (!host.empty() && !port.empty() && !wants_kubeconfig) {
    return InCluster(flags, host, port, error);
  }
  if (const std::string list = env("KUBECONFIG").value_or(""); !list.empty()) {
    for (const std::string& path : SplitPathList(list)) {
      if (Exists(path)) return FromKubeconfig(flags, path, "KUBECONFIG", error);
    }
    // As client-go, files of the list that do not exist are skipped: --server alone then.
    if (!flags.server.empty()) return FromUrl(flags, "--server", error);
    *error = "KUBECONFIG names no file that exists (" + list +
             "); kubectl would not read ~/.kube/config either";
    return std::nullopt;
  }
  if (const std::string home = env("HOME").value_or(""); !home.empty()) {
    const std::string path = home + "/.kube/config";
    if (Exists(path)) return FromKubeconfig(flags, path, "~/.kube/config", error);
  }
  if (!flags.server.empty()) return FromUrl(flags, "--server", error);
  if (!flags.context.empty()) {
    *error = "--kube.context=" + flags.context +
             " needs a kubeconfig, and there is none: pass --kubeconfig, set KUBECONFIG or create "
             "~/.kube/config";
  } else {
    *error =
        "no Kubernetes API: pass --kube.api-url, --server or --kubeconfig, set KUBECONFIG or "
        "create ~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT are not set)";
  }
  return std::nullopt;
}

}  // namespace

Result<KubeEndpoint> ResolveKubeEndpoint(const KubeEndpointFlags& flags, const EnvLookup& env) {
  std::string error;
  std::optional<KubeEndpoint> ep = Resolve(flags, env, &error);
  if (!ep) return Result<KubeEndpoint>::Fail(std::move(error));
  return Result<KubeEndpoint>::Ok(std::move(*ep));
}

std::string DescribeAuth(const KubeEndpoint& endpoint) {
  std::string out;
  if (endpoint.exec) {
    out = "exec plugin " + endpoint.exec->command;
  } else if (!endpoint.token_file.empty()) {
    out = "token file " + endpoint.token_file;
  } else if (!endpoint.token.empty()) {
    out = "token";
  }
  if (!endpoint.tls.cert_file.empty() || !endpoint.tls.cert_pem.empty()) {
    out += out.empty() ? "client certificate" : " and client certificate";
  }
  return out.empty() ? "none" : out;
}

void LogKubeEndpoint(const KubeEndpoint& endpoint) {
  if (!endpoint.kubeconfig.empty()) {
    LogInfo("Kubernetes API from a kubeconfig", {{"source", endpoint.source},
                                                 {"file", endpoint.kubeconfig},
                                                 {"context", endpoint.context},
                                                 {"cluster", endpoint.cluster},
                                                 {"user", endpoint.user},
                                                 {"server", endpoint.api_url},
                                                 {"auth", DescribeAuth(endpoint)}});
  } else {
    LogInfo("Kubernetes API", {{"source", endpoint.source},
                               {"server", endpoint.api_url},
                               {"auth", DescribeAuth(endpoint)}});
  }
  for (const auto& what : endpoint.ignored) {
    LogDebug("kubeconfig setting not used", {{"file", endpoint.kubeconfig}, {"setting", what}});
  }
  for (const auto& what : endpoint.warnings) LogWarn(what);
}

}  // namespace podwait
