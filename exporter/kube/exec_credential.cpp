#include "exporter/kube/exec_credential.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "exporter/common/base64.h"
#include "exporter/common/json.h"
#include "exporter/common/subprocess.h"
#include "exporter/common/time_format.h"

namespace podwait {
namespace {

// How much of a failing plugin's stderr goes into the error (and so into the log line).
constexpr size_t kMaxStderrInError = 400;

std::string CommandLine(const ExecPlugin& plugin) {
  std::string out = plugin.command;
  for (const auto& a : plugin.args) out += " " + a;
  return out;
}

// The first kMaxStderrInError bytes of `err`, trimmed, on one line.
std::string StderrExcerpt(std::string_view err) {
  std::string out;
  for (char c : err.substr(0, kMaxStderrInError)) out += (c == '\n' || c == '\r') ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (err.size() > kMaxStderrInError) out += " ...";
  return out;
}

ExecCredentialParse Fail(std::string error) {
  ExecCredentialParse out;
  out.error = std::move(error);
  return out;
}

}  // namespace

std::string ExecInfoJson(const ExecPlugin& plugin) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("kind");
  w.String("ExecCredential");
  w.Key("apiVersion");
  w.String(plugin.api_version.c_str());
  w.Key("spec");
  w.StartObject();
  if (plugin.provide_cluster_info) {
    w.Key("cluster");
    w.StartObject();
    w.Key("server");
    w.String(plugin.server.c_str());
    if (!plugin.tls_server_name.empty()) {
      w.Key("tls-server-name");
      w.String(plugin.tls_server_name.c_str());
    }
    if (plugin.insecure_skip_tls_verify) {
      w.Key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!plugin.certificate_authority_pem.empty()) {
      w.Key("certificate-authority-data");
      w.String(Base64Encode(plugin.certificate_authority_pem).c_str());
    }
    w.EndObject();
  }
  w.Key("interactive");
  w.Bool(false);
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

ExecCredentialParse ParseExecCredential(std::string_view text, std::string_view api_version) {
  rapidjson::Document doc;
  if (std::string e = json::ParseInto(text, &doc); !e.empty()) {
    return Fail("the output is not a JSON object (" + e + ")");
  }
  if (!doc.IsObject()) return Fail("the output is not a JSON object");
  const std::string_view kind = json::Str(&doc, "kind");
  if (kind != "ExecCredential") {
    return Fail("the output is not an ExecCredential (kind \"" + std::string(kind) + "\")");
  }
  const std::string_view version = json::Str(&doc, "apiVersion");
  if (version != api_version) {
    return Fail("the output has apiVersion \"" + std::string(version) +
                "\", the kubeconfig asks for \"" + std::string(api_version) + "\"");
  }
  const rapidjson::Value* status = json::Object(&doc, "status");
  if (status == nullptr) return Fail("the ExecCredential has no status");
  ExecCredential cred;
  cred.token = std::string(json::Str(status, "token"));
  if (cred.token.empty()) {
    if (!json::Str(status, "clientCertificateData").empty()) {
      return Fail(
          "the ExecCredential carries a client certificate (status.clientCertificateData), "
          "which podwait does not take from exec plugins; configure the plugin to return a "
          "token, or put the certificate in the kubeconfig (client-certificate-data)");
    }
    return Fail("the ExecCredential has no status.token");
  }
  const std::string_view expiry = json::Str(status, "expirationTimestamp");
  if (!expiry.empty()) {
    std::optional<Timestamp> t = ParseRfc3339(expiry);
    if (!t) {
      return Fail("status.expirationTimestamp \"" + std::string(expiry) + "\" is not RFC 3339");
    }
    cred.expires_at = *t;
  }
  ExecCredentialParse out;
  out.value = std::move(cred);
  return out;
}

ExecCredentialParse RunExecPlugin(const ExecPlugin& plugin, int64_t timeout_ms,
                                  const std::atomic<bool>* cancel, const SubprocessRunner& runner) {
  SubprocessSpec spec;
  spec.argv.push_back(plugin.command);
  spec.argv.insert(spec.argv.end(), plugin.args.begin(), plugin.args.end());
  spec.env = plugin.env;
  spec.env.emplace_back("KUBERNETES_EXEC_INFO", ExecInfoJson(plugin));
  spec.timeout_ms = timeout_ms;
  spec.cancel = cancel;
  SubprocessResult run = runner(spec);

  const std::string what = "exec plugin \"" + CommandLine(plugin) + "\"";
  const std::string hint = plugin.install_hint.empty() ? "" : " (" + plugin.install_hint + ")";
  if (!run.started) return Fail(what + " cannot be started: " + run.error + hint);
  if (run.cancelled) return Fail(what + " was stopped: podwait is stopping");
  if (run.timed_out) {
    const std::string err = StderrExcerpt(run.err);
    const std::string within =
        timeout_ms < 1000 ? std::to_string(timeout_ms) + "ms" : FormatDuration(timeout_ms);
    return Fail(what + " did not finish within " + within +
                " and was killed with every process it started" +
                (err.empty() ? "" : "; stderr: " + err));
  }
  if (run.exit_code != 0) {
    std::string status = run.exit_code >= 0 ? "exited with status " + std::to_string(run.exit_code)
                                            : "was killed by signal " + std::to_string(run.signal);
    if (run.exit_code == 127) status += hint;  // a shell or env wrapper that did not find it
    return Fail(what + " " + status + "; stderr: " + StderrExcerpt(run.err));
  }
  ExecCredentialParse parsed = ParseExecCredential(run.out, plugin.api_version);
  if (!parsed.ok()) parsed.error = what + ": " + parsed.error;
  return parsed;
}

}  // namespace podwait
