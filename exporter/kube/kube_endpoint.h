#pragma once

// Where the Kubernetes API is and how to authenticate to it: what ResolveKubeEndpoint
// (kube_config.h) and ParseKubeconfig (kubeconfig.h) produce.

#include <optional>
#include <string>
#include <vector>

#include "exporter/kube/exec_credential.h"
#include "exporter/net/http_client.h"

namespace podwait {

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
  // Settings read but not used, one sentence each (logged at debug), and flags overridden by
  // others (logged as warnings).
  std::vector<std::string> ignored;
  std::vector<std::string> warnings;

  bool in_cluster() const { return source == kInClusterSource; }
  static constexpr const char* kInClusterSource = "in-cluster";
};

}  // namespace podwait
