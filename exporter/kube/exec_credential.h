#pragma once

// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1), the way kubectl runs
// them: a kubeconfig user's `exec` names a command (aws eks get-token, gke-gcloud-auth-plugin,
// kubelogin, ...) that prints an ExecCredential whose status carries a bearer token and when it
// expires.
// https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/common/result.h"
#include "exporter/net/environment.h"

namespace podwait {

inline constexpr std::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";

// A kubeconfig user's `exec` section, with the command's path already resolved. Plain data.
struct ExecPlugin {
  std::string api_version;  // kExecApiV1 or kExecApiV1beta1
  std::string command;      // looked up in PATH when it has no '/'
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // on top of the exporter's environment
  std::string install_hint;                              // shown when the command is missing
  // provideClusterInfo: KUBERNETES_EXEC_INFO then describes the cluster too.
  bool provide_cluster_info = false;
  std::string server;
  std::string certificate_authority_pem;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
};

// The value of KUBERNETES_EXEC_INFO: an ExecCredential of the plugin's apiVersion whose spec says
// the plugin runs without a terminal (interactive: false) and, with provideClusterInfo, which
// cluster the credential is for. Pure.
std::string ExecInfoJson(const ExecPlugin& plugin);

struct ExecCredential {
  std::string token;
  Timestamp expires_at = 0;  // status.expirationTimestamp; 0: none given (valid until a 401)
};

using ExecCredentialParse = Result<ExecCredential>;

// Parses what a plugin printed. The apiVersion must be the one the kubeconfig asked for. A
// credential with only a client certificate (status.clientCertificateData/clientKeyData) is an
// error: podwait takes bearer tokens from plugins. Pure.
ExecCredentialParse ParseExecCredential(std::string_view json, std::string_view api_version);

// Runs the plugin (no shell; killed after timeout_ms) and parses its output. The error names the
// command and says what went wrong: not found (with the install hint), killed at the timeout, a
// non-zero exit (with the start of its stderr) or output that is not a usable ExecCredential.
// When *cancel (optional) turns true the plugin is killed at once and the run fails.
// `run` starts the subprocess (Environment::run; RunSubprocess by default).
ExecCredentialParse RunExecPlugin(const ExecPlugin& plugin, int64_t timeout_ms,
                                  const std::atomic<bool>* cancel = nullptr,
                                  const SubprocessRunner& run = RunSubprocess);

}  // namespace podwait
