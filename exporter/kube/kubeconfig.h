#pragma once

// Kubeconfig files, as kubectl reads them: which API server a context points at and how to
// authenticate to it. One file; several files (a KUBECONFIG list) are not merged.
//
// Supported: current-context or a chosen context; cluster server, certificate-authority (a file,
// relative to the kubeconfig's directory) or certificate-authority-data, insecure-skip-tls-verify;
// user token, tokenFile, client-certificate/client-key (files or -data) and exec credential
// plugins (client.authentication.k8s.io/v1 and v1beta1). Refused with an error that says what to
// do instead: auth-provider, username/password, impersonation (as, as-groups, ...). Read but not
// used (listed in `ignored`): tls-server-name, proxy-url; the context's namespace is kept for
// `kubectl podwait` (KubeEndpoint::namespace_), not used by the exporter.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/result.h"
#include "exporter/kube/endpoint.h"

namespace podwait {

// Which context, cluster and user to read: kubectl's --context, --cluster and --user.
struct KubeconfigChoice {
  std::string context;  // empty: current-context
  std::string cluster;  // empty: the context's
  std::string user;     // empty: the context's
  // kubectl's --server is given: the cluster may have no server, and without a context (and
  // no --cluster) the file names none.
  bool server_given = false;
};

// The endpoint: api_url, tls, the credentials (token, token_file or exec), the names of context,
// cluster and user, ignored; source and kubeconfig are the caller's to fill. The error is
// "<file>: <what is missing or wrong>".
using KubeconfigParse = Result<KubeEndpoint>;

// Parses the kubeconfig text `yaml` into the endpoint of one context. `file` names it in errors,
// and its directory is what relative paths (certificate-authority, client-certificate, client-key,
// tokenFile, an exec command with a '/') are resolved against. `choice` picks the context (empty:
// current-context) and may replace its cluster and user. A file that is not a kubeconfig (another
// kind, none of its lists, a list that is not one) says so. Pure: reads no file (not even the
// ones it names) and never throws.
KubeconfigParse ParseKubeconfig(std::string_view yaml, const std::string& file,
                                const KubeconfigChoice& choice);
// The same with only the context chosen.
inline KubeconfigParse ParseKubeconfig(std::string_view yaml, const std::string& file,
                                       const std::string& context) {
  return ParseKubeconfig(yaml, file, KubeconfigChoice{context, "", "", false});
}

// The directory part of a path: "a/b/config" -> "a/b", "config" -> ".", "/config" -> "/".
std::string DirectoryOf(const std::string& path);

}  // namespace podwait
