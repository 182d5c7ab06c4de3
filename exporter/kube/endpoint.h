#pragma once

// Where the Kubernetes API is and how to authenticate to it (KubeEndpoint), and how podwait finds
// it: the explicit --kube.* flags, a kubeconfig file (parsed by kubeconfig.h), or the in-cluster
// service account. TokenSource (token_source.h) keeps the bearer token fresh.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/kube/exec_credential.h"
#include "exporter/net/environment.h"
#include "exporter/net/http_client.h"

namespace podwait {

inline constexpr const char* kServiceAccountTokenFile =
    "/var/run/secrets/kubernetes.io/serviceaccount/token";
inline constexpr const char* kServiceAccountCaFile =
    "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

// How to reach the API server. Plain data. At most one of token_file, token and exec is set;
// none: no Authorization header (kubectl proxy, tests, client certificates alone).
struct KubeEndpoint {
  std::string api_url;     // "https://10.0.0.1:443" or "http://127.0.0.1:8001", no trailing slash
  std::string token_file;  // a file re-read as it rotates
  std::string token;       // a fixed token (a kubeconfig user's `token`)
  std::optional<ExecPlugin> exec;  // an exec credential plugin
  TlsOptions tls;

  // Where it came from, for the start-up log line: "--kube.api-url", "in-cluster", or how the
  // kubeconfig was found ("--kubeconfig", "KUBECONFIG", "~/.kube/config"); the kubeconfig file
  // and the names of its context, cluster and user.
  std::string source;
  std::string kubeconfig;
  std::string context;
  std::string cluster;
  std::string user;
  // The context's namespace (kubectl's default namespace; `kubectl podwait` reads it, the
  // exporter does not).
  std::string namespace_;
  // Settings read but not used, one sentence each (logged at debug), and flags overridden by
  // others (logged as warnings).
  std::vector<std::string> ignored;
  std::vector<std::string> warnings;

  bool in_cluster() const { return source == kInClusterSource; }
  static constexpr const char* kInClusterSource = "in-cluster";
};

// The flags that choose and adjust the endpoint: the exporter's --kube.* and kubectl's global
// options (`kubectl podwait` takes them with kubectl's meanings; each is laid over the kubeconfig
// as client-go's clientcmd overrides are).
struct KubeEndpointFlags {
  std::string api_url;                    // --kube.api-url
  std::string kubeconfig;                 // --kubeconfig
  std::string context;                    // --kube.context, kubectl's --context
  std::string token_file;                 // --kube.token-file
  std::string ca_file;                    // --kube.ca-file, kubectl's --certificate-authority
  bool insecure_skip_tls_verify = false;  // --kube.insecure-skip-tls-verify, kubectl's too
  // kubectl's --server/-s, --cluster, --user, --token, --client-certificate, --client-key.
  std::string server;
  std::string cluster;
  std::string user;
  std::string token;
  std::string client_certificate;
  std::string client_key;
};

// Resolves the endpoint, first match wins:
//  1. --kube.api-url, with the credential and TLS flags below (--kubeconfig and --kube.context
//     are then ignored, with a warning; --server beside it is an error);
//  2. --kubeconfig (an error when the file cannot be read);
//  3. the in-cluster configuration (KUBERNETES_SERVICE_HOST/_PORT and the service-account files),
//     unless --kube.context, --cluster or --user asks for a kubeconfig;
//  4. $KUBECONFIG: the first file of the colon-separated list that exists (lists are not merged;
//     an error when none exists, as kubectl then does not read ~/.kube/config either);
//  5. $HOME/.kube/config when it exists;
//  6. --server alone (kubectl --server URL without a kubeconfig).
// Over a kubeconfig, as kubectl: --cluster and --user replace the context's; --server the
// cluster's server (a context is then optional; a server without a scheme is https when TLS is
// configured, else http); --token (or --kube.token-file) the user's token, tokenFile or exec
// plugin; --client-certificate and --client-key the user's; --certificate-authority the CA (and
// turns verification back on unless --insecure-skip-tls-verify is given too);
// --insecure-skip-tls-verify turns verification off and drops the kubeconfig's CA. Files named by
// the kubeconfig or the flags must be readable. An error (naming the file and the item for a bad
// kubeconfig) when nothing applies.
Result<KubeEndpoint> ResolveKubeEndpoint(const KubeEndpointFlags& flags, const EnvLookup& env);

// How requests authenticate, for logs: "exec plugin aws", "token file /path", "token",
// "client certificate", "none". Never the secret itself.
std::string DescribeAuth(const KubeEndpoint& endpoint);

// Logs once (info) where the API is and how podwait authenticates: source, kubeconfig file,
// context, server, auth. Never a token or a key. Then the ignored settings (debug) and warnings.
void LogKubeEndpoint(const KubeEndpoint& endpoint);

}  // namespace podwait
