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

std::optional<KubeEndpoint> FromApiUrl(const KubeEndpointFlags& flags, std::string* error) {
  KubeEndpoint ep;
  const std::string& url = flags.api_url;
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    *error = "--kube.api-url must start with http:// or https://";
    return std::nullopt;
  }
  ep.api_url = url;
  while (!ep.api_url.empty() && ep.api_url.back() == '/') ep.api_url.pop_back();
  ep.token_file = flags.token_file;
  ep.tls.ca_file = flags.ca_file;
  ep.tls.insecure_skip_verify = flags.insecure_skip_tls_verify;
  ep.source = "--kube.api-url";
  if (!flags.kubeconfig.empty() || !flags.context.empty()) {
    ep.warnings.push_back("--kubeconfig and --kube.context are ignored: --kube.api-url is set");
  }
  return ep;
}

KubeEndpoint InCluster(const KubeEndpointFlags& flags, const std::string& host,
                       const std::string& port) {
  KubeEndpoint ep;
  const bool ipv6 = host.find(':') != std::string::npos;
  ep.api_url = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  ep.token_file = flags.token_file.empty() ? kServiceAccountTokenFile : flags.token_file;
  ep.tls.ca_file = flags.ca_file.empty() ? kServiceAccountCaFile : flags.ca_file;
  ep.tls.insecure_skip_verify = flags.insecure_skip_tls_verify;
  ep.source = KubeEndpoint::kInClusterSource;
  return ep;
}

// The endpoint of the kubeconfig at `path` (found through `source`), with the --kube.* flags
// laid over it.
std::optional<KubeEndpoint> FromKubeconfig(const KubeEndpointFlags& flags, const std::string& path,
                                           const std::string& source, std::string* error) {
  Result<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    *error = "cannot read the kubeconfig " + path + " (" + source + "): " + text.error;
    return std::nullopt;
  }
  KubeconfigParse parsed = ParseKubeconfig(*text, path, flags.context);
  if (!parsed.ok()) {
    *error = parsed.error;
    return std::nullopt;
  }
  KubeEndpoint& ep = *parsed.value;
  ep.source = source;
  ep.kubeconfig = path;
  const std::string cluster = "certificate-authority of cluster \"" + ep.cluster + "\"";
  const std::string user = "of user \"" + ep.user + "\"";
  if ((flags.ca_file.empty() && !CheckReadable(path, cluster, ep.tls.ca_file, error)) ||
      !CheckReadable(path, "client-certificate " + user, ep.tls.cert_file, error) ||
      !CheckReadable(path, "client-key " + user, ep.tls.key_file, error) ||
      (flags.token_file.empty() &&
       !CheckReadable(path, "tokenFile " + user, ep.token_file, error))) {
    return std::nullopt;
  }
  if (ep.exec && ep.exec->provide_cluster_info && ep.exec->certificate_authority_pem.empty() &&
      !ep.tls.ca_file.empty()) {
    Result<std::string> ca = ReadWholeFile(ep.tls.ca_file);
    if (!ca.ok()) {
      *error = path + ": " + cluster + " " + ep.tls.ca_file + " cannot be read: " + ca.error;
      return std::nullopt;
    }
    ep.exec->certificate_authority_pem = std::move(*ca);
  }
  if (!flags.token_file.empty()) {
    ep.token_file = flags.token_file;
    ep.token.clear();
    ep.exec.reset();
  }
  if (!flags.ca_file.empty()) {
    ep.tls.ca_file = flags.ca_file;
    ep.tls.ca_pem.clear();
  }
  if (flags.insecure_skip_tls_verify) ep.tls.insecure_skip_verify = true;
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
  if (!flags.api_url.empty()) return FromApiUrl(flags, error);
  if (!flags.kubeconfig.empty()) {
    return FromKubeconfig(flags, flags.kubeconfig, "--kubeconfig", error);
  }
  const std::string host = env("KUBERNETES_SERVICE_HOST").value_or("");
  const std::string port = env("KUBERNETES_SERVICE_PORT").value_or("");
  if (!host.empty() && !port.empty() && flags.context.empty()) {
    return InCluster(flags, host, port);
  }
  if (const std::string list = env("KUBECONFIG").value_or(""); !list.empty()) {
    for (const std::string& path : SplitPathList(list)) {
      if (Exists(path)) return FromKubeconfig(flags, path, "KUBECONFIG", error);
    }
    *error = "KUBECONFIG names no file that exists (" + list +
             "); kubectl would not read ~/.kube/config either";
    return std::nullopt;
  }
  if (const std::string home = env("HOME").value_or(""); !home.empty()) {
    const std::string path = home + "/.kube/config";
    if (Exists(path)) return FromKubeconfig(flags, path, "~/.kube/config", error);
  }
  if (!flags.context.empty()) {
    *error = "--kube.context=" + flags.context +
             " needs a kubeconfig, and there is none: pass --kubeconfig, set KUBECONFIG or create "
             "~/.kube/config";
  } else {
    *error =
        "no Kubernetes API: pass --kube.api-url or --kubeconfig, set KUBECONFIG or create "
        "~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST and "
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
