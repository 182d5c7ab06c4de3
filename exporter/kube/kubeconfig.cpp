#include "exporter/kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cctype>

#include "exporter/common/base64.h"

namespace podwait {
namespace {

// The way around any authentication podwait does not support: kubectl authenticates, podwait
// talks to its proxy.
constexpr std::string_view kProxyAdvice =
    "run \"kubectl proxy\" and pass --kube.api-url=http://127.0.0.1:8001";

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// `path` relative to `dir` ("./" prefixes dropped); absolute paths stay as they are.
std::string Resolve(const std::string& dir, std::string path) {
  if (path.empty() || path[0] == '/') return path;
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  return dir == "/" ? "/" + path : dir + "/" + path;
}

// Reads the parts of a kubeconfig with the types kubectl expects. The first problem found is kept
// as the error ("<file>: <where>: <what>"); after one, the readers return empty values.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(const std::string& what) {
    if (error_.empty()) error_ = file_ + ": " + what;
  }

  // The member `key` of a mapping; undefined when absent (or when `map` is not a mapping).
  static YAML::Node Member(const YAML::Node& map, const char* key) {
    if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    return map[key];
  }
  // Whether `key` is given a value (an empty string counts as not given).
  static bool Has(const YAML::Node& map, const char* key) {
    const YAML::Node n = Member(map, key);
    return n.IsDefined() && !n.IsNull() && !(n.IsScalar() && n.Scalar().empty());
  }

  std::string String(const YAML::Node& map, const char* key, const std::string& where) {
    const YAML::Node n = Member(map, key);
    if (!n.IsDefined() || n.IsNull()) return "";
    if (!n.IsScalar()) {
      Fail(where + ": " + key + " is not a string");
      return "";
    }
    return n.Scalar();
  }

  // YAML 1.1 booleans, as kubectl's YAML reader takes them (true, yes, on, in any case).
  bool Bool(const YAML::Node& map, const char* key, const std::string& where) {
    std::string text = String(map, key, where);
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (text.empty() || text == "false" || text == "no" || text == "off") return false;
    if (text == "true" || text == "yes" || text == "on") return true;
    Fail(where + ": " + key + " is not true or false: " + Quoted(text));
    return false;
  }

  // A *-data field: base64 of a PEM block.
  std::string Pem(const YAML::Node& map, const char* key, const std::string& where) {
    const std::string text = String(map, key, where);
    if (text.empty()) return "";
    std::optional<std::string> pem = Base64Decode(text);
    if (!pem) {
      Fail(where + ": " + key + " is not valid base64");
      return "";
    }
    if (pem->find("-----BEGIN ") == std::string::npos) {
      Fail(where + ": " + key + " does not hold a PEM block (\"-----BEGIN ...\") once decoded");
      return "";
    }
    return *pem;
  }

  std::vector<std::string> Strings(const YAML::Node& map, const char* key,
                                   const std::string& where) {
    std::vector<std::string> out;
    const YAML::Node n = Member(map, key);
    if (!n.IsDefined() || n.IsNull()) return out;
    if (!n.IsSequence()) {
      Fail(where + ": " + key + " is not a list");
      return out;
    }
    for (const YAML::Node& item : n) {
      if (!item.IsScalar()) {
        Fail(where + ": " + key + " holds an item that is not a string");
        return {};
      }
      out.push_back(item.Scalar());
    }
    return out;
  }

  // The names of a top-level list (clusters, contexts, users), for errors.
  static std::string Names(const YAML::Node& root, const char* list) {
    std::string out;
    const YAML::Node items = Member(root, list);
    if (items.IsDefined() && items.IsSequence()) {
      for (const YAML::Node& item : items) {
        const YAML::Node name = Member(item, "name");
        if (name.IsDefined() && name.IsScalar()) out += (out.empty() ? "" : ", ") + name.Scalar();
      }
    }
    return out.empty() ? "none" : out;
  }

  // The `field` mapping of the entry called `name` of the top-level `list` ("contexts",
  // "context"). Undefined, with the error "<field> "<name>"<of> not found (<list>: <names>)",
  // when there is none (or after an earlier error).
  YAML::Node Lookup(const YAML::Node& root, const char* list, const char* field,
                    const std::string& name, const std::string& of) {
    const YAML::Node items = Member(root, list);
    if (!failed() && items.IsDefined() && items.IsSequence()) {
      for (const YAML::Node& item : items) {
        const YAML::Node n = Member(item, "name");
        if (!n.IsDefined() || !n.IsScalar() || n.Scalar() != name) continue;
        const YAML::Node inner = Member(item, field);
        // An entry without its mapping (`- name: x`) is an empty one.
        return inner.IsDefined() && !inner.IsNull() ? inner : YAML::Node(YAML::NodeType::Map);
      }
    }
    Fail(std::string(field) + " " + Quoted(name) + of + " not found (" + list + ": " +
         Names(root, list) + ")");
    return YAML::Node(YAML::NodeType::Undefined);
  }

 private:
  std::string file_;
  std::string error_;
};

// The two spellings of one TLS item: a file (resolved) or base64 PEM data. Data wins when both
// are given, as in kubectl (which says so); so does this parser, in `ignored`.
void ReadFileOrData(Reader& r, const YAML::Node& map, const char* file_key, const char* data_key,
                    const std::string& where, const std::string& dir, std::string* file,
                    std::string* pem, std::vector<std::string>* ignored) {
  *pem = r.Pem(map, data_key, where);
  *file = Resolve(dir, r.String(map, file_key, where));
  if (!pem->empty() && !file->empty()) {
    ignored->push_back(where + ": " + file_key + " is ignored, " + data_key + " is used");
    file->clear();
  }
}

// `server_given`: kubectl's --server replaces the cluster's server, which may then be absent.
void ReadCluster(Reader& r, const YAML::Node& cluster, const std::string& where,
                 const std::string& dir, bool server_given, KubeEndpoint* t,
                 std::string* tls_server_name) {
  t->api_url = r.String(cluster, "server", where);
  if (r.failed()) return;
  if (t->api_url.empty() && !server_given) return r.Fail(where + " has no server");
  if (!t->api_url.empty() && t->api_url.rfind("https://", 0) != 0 &&
      t->api_url.rfind("http://", 0) != 0) {
    return r.Fail(where + ": server " + Quoted(t->api_url) + " is not an http(s) URL");
  }
  while (!t->api_url.empty() && t->api_url.back() == '/') t->api_url.pop_back();
  ReadFileOrData(r, cluster, "certificate-authority", "certificate-authority-data", where, dir,
                 &t->tls.ca_file, &t->tls.ca_pem, &t->ignored);
  t->tls.insecure_skip_verify = r.Bool(cluster, "insecure-skip-tls-verify", where);
  *tls_server_name = r.String(cluster, "tls-server-name", where);
  if (!tls_server_name->empty()) {
    t->ignored.push_back(where + ": tls-server-name " + Quoted(*tls_server_name) +
                         " is not used; the server's certificate must name the host of " +
                         t->api_url);
  }
  if (const std::string proxy = r.String(cluster, "proxy-url", where); !proxy.empty()) {
    t->ignored.push_back(where + ": proxy-url is not used; set HTTPS_PROXY instead");
  }
}

void ReadExec(Reader& r, const YAML::Node& exec, const std::string& where, const std::string& dir,
              KubeEndpoint* t) {
  const std::string at = where + ": exec";
  ExecPlugin plugin;
  plugin.api_version = r.String(exec, "apiVersion", at);
  plugin.command = r.String(exec, "command", at);
  plugin.args = r.Strings(exec, "args", at);
  plugin.install_hint = r.String(exec, "installHint", at);
  plugin.provide_cluster_info = r.Bool(exec, "provideClusterInfo", at);
  const std::string interactive = r.String(exec, "interactiveMode", at);
  if (r.failed()) return;
  if (plugin.api_version.empty()) {
    return r.Fail(at + " has no apiVersion (" + std::string(kExecApiV1) + " or " +
                  std::string(kExecApiV1beta1) + ")");
  }
  if (plugin.api_version != kExecApiV1 && plugin.api_version != kExecApiV1beta1) {
    return r.Fail(at + ": apiVersion " + Quoted(plugin.api_version) + " is not supported (" +
                  std::string(kExecApiV1) + " or " + std::string(kExecApiV1beta1) + ")");
  }
  if (plugin.command.empty()) return r.Fail(at + " has no command");
  if (interactive == "Always") {
    return r.Fail(at +
                  ": interactiveMode Always needs a terminal, and podwait runs the plugin "
                  "without one; use a plugin that works non-interactively");
  }
  if (!interactive.empty() && interactive != "Never" && interactive != "IfAvailable") {
    return r.Fail(at + ": interactiveMode " + Quoted(interactive) +
                  " is not Never, IfAvailable or Always");
  }
  // kubectl resolves a command with a '/' against the kubeconfig's directory; a bare name is
  // looked up in PATH.
  if (plugin.command.find('/') != std::string::npos) {
    plugin.command = Resolve(dir, plugin.command);
  }
  const YAML::Node env = Reader::Member(exec, "env");
  if (env.IsDefined() && !env.IsNull()) {
    if (!env.IsSequence()) return r.Fail(at + ": env is not a list");
    for (const YAML::Node& item : env) {
      const std::string name = r.String(item, "name", at + ": env");
      const std::string value = r.String(item, "value", at + ": env");
      if (r.failed()) return;
      if (name.empty()) return r.Fail(at + ": env holds an item without a name");
      plugin.env.emplace_back(name, value);
    }
  }
  t->exec = std::move(plugin);
}

void ReadUser(Reader& r, const YAML::Node& user, const std::string& where, const std::string& dir,
              KubeEndpoint* t) {
  const YAML::Node provider = Reader::Member(user, "auth-provider");
  if (provider.IsDefined() && !provider.IsNull()) {
    const std::string name = r.String(provider, "name", where + ": auth-provider");
    return r.Fail(where + " uses auth-provider " + Quoted(name) +
                  ", which podwait does not support: switch the user to an exec credential "
                  "plugin (gke-gcloud-auth-plugin for GKE, kubelogin for AKS and OIDC), or " +
                  std::string(kProxyAdvice));
  }
  if (Reader::Has(user, "username") || Reader::Has(user, "password")) {
    return r.Fail(where +
                  " uses username/password (basic authentication), which podwait does not "
                  "support: use a token, a client certificate or an exec credential plugin, or " +
                  std::string(kProxyAdvice));
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (Reader::Has(user, key)) {
      return r.Fail(where + " impersonates (" + key +
                    "), which podwait does not support; use a context whose user is the identity "
                    "podwait should have");
    }
  }
  t->token = r.String(user, "token", where);
  t->token_file = Resolve(dir, r.String(user, "tokenFile", where));
  if (!t->token_file.empty()) t->token.clear();  // client-go: the file wins
  const YAML::Node exec = Reader::Member(user, "exec");
  if (exec.IsDefined() && !exec.IsNull()) {
    if (!t->token.empty() || !t->token_file.empty()) {
      return r.Fail(where + " has both exec and token/tokenFile; keep one");
    }
    ReadExec(r, exec, where, dir, t);
  }
  ReadFileOrData(r, user, "client-certificate", "client-certificate-data", where, dir,
                 &t->tls.cert_file, &t->tls.cert_pem, &t->ignored);
  ReadFileOrData(r, user, "client-key", "client-key-data", where, dir, &t->tls.key_file,
                 &t->tls.key_pem, &t->ignored);
  if (r.failed()) return;
  const bool cert = !t->tls.cert_file.empty() || !t->tls.cert_pem.empty();
  const bool key = !t->tls.key_file.empty() || !t->tls.key_pem.empty();
  if (cert != key) {
    return r.Fail(where + (cert ? " has a client certificate but no client-key"
                                : " has a client-key but no client certificate"));
  }
}

}  // namespace

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

namespace {

// yaml-cpp's message about a file that is not text may quote its bytes: only printable ASCII of
// it goes into an error (and so into a terminal or a log line).
std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 200)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// Whether the document has a kubeconfig's shape: kind Config (or none), clusters, contexts and
// users lists when present, and at least one of them or current-context. An empty document (or
// mapping) is a kubeconfig only when --server names the API server.
bool CheckShape(Reader& r, const YAML::Node& root, bool server_given) {
  if ((root.IsNull() || (root.IsMap() && root.size() == 0)) && server_given) return true;
  if (!root.IsMap()) {
    r.Fail(root.IsNull() ? "empty: not a kubeconfig (no clusters, contexts or users)"
                         : "not a kubeconfig (no mapping with clusters, contexts and users)");
    return false;
  }
  const std::string kind = r.String(root, "kind", "the file");
  if (!kind.empty() && kind != "Config") {
    r.Fail("not a kubeconfig: its kind is " + Quoted(kind) + ", a kubeconfig's is Config");
    return false;
  }
  bool any = Reader::Has(root, "current-context");
  for (const char* list : {"clusters", "contexts", "users"}) {
    const YAML::Node n = Reader::Member(root, list);
    if (!n.IsDefined() || n.IsNull()) continue;
    if (!n.IsSequence()) {
      r.Fail(std::string(list) + " is not a list (as kubectl config view shows it: - name: ...)");
      return false;
    }
    any = true;
  }
  if (!any && !server_given) {
    r.Fail("not a kubeconfig: it has no clusters, contexts, users or current-context");
  }
  return !r.failed();
}

// The context, cluster and user `choice` picks, into *t.
void ReadChosen(Reader& r, const YAML::Node& root, const KubeconfigChoice& choice,
                const std::string& dir, KubeEndpoint* t, std::string* tls_server_name) {
  t->context =
      choice.context.empty() ? r.String(root, "current-context", "the file") : choice.context;
  // No context: kubectl's --server (or --cluster) alone says where the API server is.
  const bool context_optional = choice.server_given || !choice.cluster.empty();
  YAML::Node ctx(YAML::NodeType::Map);
  if (!t->context.empty()) {
    ctx = r.Lookup(root, "contexts", "context", t->context, "");
  } else if (!r.failed() && !context_optional) {
    r.Fail("no current-context is set; pass --kube.context (contexts: " +
           Reader::Names(root, "contexts") + ")");
  }
  const std::string where = "context " + Quoted(t->context);
  t->cluster = choice.cluster.empty() ? r.String(ctx, "cluster", where) : choice.cluster;
  t->user = choice.user.empty() ? r.String(ctx, "user", where) : choice.user;
  if (!r.failed() && t->cluster.empty() && !choice.server_given) {
    r.Fail(where + " names no cluster");
  }
  t->namespace_ = r.String(ctx, "namespace", where);
  if (!t->namespace_.empty()) {
    t->ignored.push_back(where + ": namespace " + Quoted(t->namespace_) +
                         " is not used by the exporter; --namespaces chooses what it watches");
  }
  if (!r.failed() && !t->cluster.empty()) {
    const std::string of = choice.cluster.empty() ? " of " + where : " (--cluster)";
    const YAML::Node cluster = r.Lookup(root, "clusters", "cluster", t->cluster, of);
    if (!r.failed()) {
      ReadCluster(r, cluster, "cluster " + Quoted(t->cluster), dir, choice.server_given, t,
                  tls_server_name);
    }
  }
  if (!r.failed() && !t->user.empty()) {
    const std::string of = choice.user.empty() ? " of " + where : " (--user)";
    const YAML::Node user = r.Lookup(root, "users", "user", t->user, of);
    if (!r.failed()) ReadUser(r, user, "user " + Quoted(t->user), dir, t);
  }
}

}  // namespace

KubeconfigParse ParseKubeconfig(std::string_view yaml, const std::string& file,
                                const KubeconfigChoice& choice) {
  KubeconfigParse out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const std::exception& e) {
    out.error = file + ": not valid YAML, so not a kubeconfig: " + Printable(e.what());
    return out;
  }
  Reader r(file);
  KubeEndpoint t;
  std::string tls_server_name;  // told to an exec plugin, not used for TLS
  try {
    if (CheckShape(r, root, choice.server_given) && root.IsMap()) {
      ReadChosen(r, root, choice, DirectoryOf(file), &t, &tls_server_name);
    }
  } catch (const std::exception& e) {
    r.Fail(std::string("unexpected shape: ") + Printable(e.what()));
  }
  if (r.failed()) {
    out.error = r.error();
    return out;
  }
  if (t.exec) {
    // What KUBERNETES_EXEC_INFO tells a plugin with provideClusterInfo (a CA file is read by the
    // caller, which may read files).
    t.exec->server = t.api_url;
    t.exec->certificate_authority_pem = t.tls.ca_pem;
    t.exec->insecure_skip_tls_verify = t.tls.insecure_skip_verify;
    t.exec->tls_server_name = tls_server_name;
  }
  out.value = std::move(t);
  return out;
}

}  // namespace podwait
