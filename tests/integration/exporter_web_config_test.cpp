// --web.config.file against real clients: a real Prometheus scrapes podwait-exporter over TLS with
// basic auth; curl and openssl s_client check the 401s, client certificates and a certificate
// replaced on disk. The exporter watches the simulator's demo scenario. Certificates are made up:
// a throwaway CA, server and client certificates for 127.0.0.1, generated here with openssl. The
// bcrypt hash is of the password "s3cret", made with Python's crypt.crypt(..., METHOD_BLOWFISH)
// (the same $2b$ format as `htpasswd -nbBC 10 "" s3cret`, which prints $2y$).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* kHash = "$2b$10$WhVwvwWDUxVzLt4w8b4OjeoxicxrqWTL59ByMMZV8LDKm5uOjFER6";

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

class WebConfig : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = MakeTempDir();
    const std::string& d = dir_;
    std::vector<std::vector<std::string>> commands = TestCaCommands(d);
    commands.insert(
        commands.end(),
        {
            Server("server-1"),
            Server("server-2"),
            OpensslReq({"-CA", d + "/ca.crt", "-CAkey", d + "/ca.key", "-keyout", d + "/client.key",
                        "-out", d + "/client.crt", "-subj", "/CN=podwait-test-client"}),
            OpensslReq({"-CA", d + "/other-ca.crt", "-CAkey", d + "/other-ca.key", "-keyout",
                        d + "/stranger.key", "-out", d + "/stranger.crt", "-subj",
                        "/CN=podwait-stranger"}),
        });
    for (const auto& argv : commands) {
      std::string output;
      if (RunCommand(argv, &output) != 0) {
        setup_error_ = "openssl failed: " + output;
        return;
      }
    }
  }
  void SetUp() override { ASSERT_TRUE(setup_error_.empty()) << setup_error_; }

  static std::vector<std::string> Server(const std::string& name) {
    return OpensslReq({"-CA", dir_ + "/ca.crt", "-CAkey", dir_ + "/ca.key", "-keyout",
                       dir_ + "/" + name + ".key", "-out", dir_ + "/" + name + ".crt", "-subj",
                       "/CN=podwait-test-" + name, "-addext", "subjectAltName=IP:127.0.0.1"});
  }

  // Starts the simulator and an exporter with `web_config` (written to a file in a fresh
  // folder, with the server certificate as tls.crt/tls.key beside it, as a Secret mounts them).
  void Start(const std::string& web_config) {
    stack_ = std::make_unique<SimAndExporter>("tests/scenarios/demo.json",
                                              std::vector<std::string>{}, false);
    conf_dir_ = MakeTempDir();
    std::string out;
    RunCommand({"cp", dir_ + "/server-1.crt", conf_dir_ + "/tls.crt"}, &out);
    RunCommand({"cp", dir_ + "/server-1.key", conf_dir_ + "/tls.key"}, &out);
    WriteFile(conf_dir_ + "/web.yml", web_config);
    port_ = FreePort();
    exporter_ = std::make_unique<Subprocess>(std::vector<std::string>{
        BinaryPath("podwait-exporter"), "--web.listen-address=127.0.0.1:" + std::to_string(port_),
        "--kube.api-url=http://127.0.0.1:" + std::to_string(stack_->sim_port()),
        "--pd.url-template=http://127.0.0.1:" + std::to_string(stack_->sim_port()) +
            "/pd/{namespace}/{cluster}",
        "--web.config.file=" + conf_dir_ + "/web.yml"});
    ASSERT_TRUE(WaitFor(
        [&] { return exporter_->ReadLog().find("msg=listening") != std::string::npos; }, 20s))
        << exporter_->ReadLog();
  }

  std::string Url(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(port_) + path;
  }

  // curl's status code ("000" when the connection or handshake failed) and headers.
  struct CurlResult {
    int exit_code = 0;
    std::string code;
    std::string headers;
  };
  CurlResult Curl(const std::string& path, std::vector<std::string> options) const {
    const std::string header_file = conf_dir_ + "/headers.txt";
    std::remove(header_file.c_str());
    std::vector<std::string> argv = {"curl",       "-sS",       "-o",       "/dev/null",
                                     "-D",         header_file, "-w",       "%{http_code}",
                                     "--max-time", "10",        "--cacert", dir_ + "/ca.crt"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(Url(path));
    CurlResult r;
    std::string output;
    r.exit_code = RunCommand(argv, &output);
    r.code = output.substr(output.size() >= 3 ? output.size() - 3 : 0);
    std::ifstream in(header_file);
    r.headers.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
  }

  // The body of an authenticated GET.
  std::string Get(const std::string& path) const {
    std::string output;
    RunCommand({"curl", "-sS", "--max-time", "10", "--cacert", dir_ + "/ca.crt", "-u",
                "prometheus:s3cret", Url(path)},
               &output);
    return output;
  }

  // podwait_web_config_last_reload_successful's sample line, from a scrape.
  std::string ReloadSuccessful() const {
    const std::string metrics = Get("/metrics");
    const std::string name = "\npodwait_web_config_last_reload_successful ";
    const auto at = metrics.find(name);
    return at == std::string::npos ? metrics.substr(0, 300)
                                   : metrics.substr(at + 1, metrics.find('\n', at + 1) - at - 1);
  }

  // As the kubelet updates a mounted file: a new file, renamed over the old one.
  void Replace(const std::string& name, const std::string& text) const {
    WriteFile(conf_dir_ + "/" + name + ".new", text);
    ASSERT_EQ(
        std::rename((conf_dir_ + "/" + name + ".new").c_str(), (conf_dir_ + "/" + name).c_str()),
        0);
  }

  // The subject of the certificate the exporter presents to a new connection.
  std::string ServedSubject() const {
    std::string output;
    RunCommand({"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(port_), "-CAfile",
                dir_ + "/ca.crt"},
               &output, "");
    const auto at = output.find("subject=");
    return at == std::string::npos ? output : output.substr(at, output.find('\n', at) - at);
  }

  std::string TlsAndUsers(const std::string& extra_tls = "") const {
    return "tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n" + extra_tls +
           "basic_auth_users:\n  prometheus: " + kHash + "\n";
  }

  static inline std::string dir_;
  static inline std::string setup_error_;
  std::unique_ptr<SimAndExporter> stack_;
  std::unique_ptr<Subprocess> exporter_;
  std::string conf_dir_;
  int port_ = 0;
};

TEST_F(WebConfig, PrometheusScrapesOverTlsWithBasicAuth) {
  Start(TlsAndUsers());
  const std::string prom_dir = MakeTempDir();
  WriteFile(prom_dir + "/prometheus.yml",
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n"
            "  - job_name: podwait\n    scheme: https\n"
            "    tls_config:\n      ca_file: " +
                dir_ + "/ca.crt\n" +
                "    basic_auth:\n      username: prometheus\n      password: s3cret\n"
                "    static_configs:\n      - targets: ['127.0.0.1:" +
                std::to_string(port_) +
                "']\n"
                "  - job_name: podwait-wrong-password\n    scheme: https\n"
                "    tls_config:\n      ca_file: " +
                dir_ + "/ca.crt\n" +
                "    basic_auth:\n      username: prometheus\n      password: wrong\n"
                "    static_configs:\n      - targets: ['127.0.0.1:" +
                std::to_string(port_) + "']\n");
  const int prom_port = FreePort();
  Subprocess prometheus({"prometheus", "--config.file=" + prom_dir + "/prometheus.yml",
                         "--storage.tsdb.path=" + prom_dir + "/data",
                         "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)});
  auto query = [&](const std::string& q) {
    std::string out;
    RunCommand({"curl", "-sS", "--get", "--data-urlencode", "query=" + q,
                "http://127.0.0.1:" + std::to_string(prom_port) + "/api/v1/query"},
               &out);
    return out;
  };
  std::string last;
  const bool up = WaitFor(
      [&] {
        last = query("up{job=\"podwait\"} == 1 and on() podwait_build_info{job=\"podwait\"}");
        return last.find("\"value\":[") != std::string::npos &&
               last.find("\"1\"]") != std::string::npos;
      },
      60s);
  EXPECT_TRUE(up) << last << "\n" << prometheus.ReadLog();
  // The target with the wrong password is scraped too, and is down (401).
  EXPECT_TRUE(WaitFor(
      [&] {
        last = query("up{job=\"podwait-wrong-password\"} == 0");
        return last.find("\"0\"]") != std::string::npos;
      },
      30s))
      << last;
}

TEST_F(WebConfig, EveryEndpointWantsTheRightPassword) {
  Start(TlsAndUsers());
  for (const std::string path : {"/metrics", "/healthz", "/readyz", "/api/v1/pods", "/", "/x"}) {
    SCOPED_TRACE(path);
    CurlResult none = Curl(path, {});
    EXPECT_EQ(none.code, "401");
    EXPECT_THAT(none.headers, HasSubstr("WWW-Authenticate: Basic"));
    EXPECT_EQ(Curl(path, {"-u", "prometheus:wrong"}).code, "401");
    EXPECT_EQ(Curl(path, {"-u", "nobody:s3cret"}).code, "401");
    const std::string ok = Curl(path, {"-u", "prometheus:s3cret"}).code;
    if (path == "/x") {
      EXPECT_EQ(ok, "404");
    } else if (path != "/readyz") {  // ready once the watches synced
      EXPECT_EQ(ok, "200");
    }
  }
  // Plain HTTP to the TLS port gets no answer.
  std::string out;
  EXPECT_NE(RunCommand({"curl", "-sS", "--max-time", "5", "-u", "prometheus:s3cret",
                        "http://127.0.0.1:" + std::to_string(port_) + "/metrics"},
                       &out),
            0);
}

TEST_F(WebConfig, RequireAndVerifyClientCert) {
  Start(TlsAndUsers("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: " + dir_ +
                    "/ca.crt\n"));
  CurlResult no_cert = Curl("/metrics", {"-u", "prometheus:s3cret"});
  EXPECT_NE(no_cert.exit_code, 0);
  EXPECT_EQ(no_cert.code, "000");
  CurlResult stranger = Curl("/metrics", {"-u", "prometheus:s3cret", "--cert",
                                          dir_ + "/stranger.crt", "--key", dir_ + "/stranger.key"});
  EXPECT_EQ(stranger.code, "000");
  CurlResult good = Curl("/metrics", {"-u", "prometheus:s3cret", "--cert", dir_ + "/client.crt",
                                      "--key", dir_ + "/client.key"});
  EXPECT_EQ(good.code, "200") << exporter_->ReadLog();
}

TEST_F(WebConfig, ClientAllowedSansRefusesOtherNames) {
  Start(TlsAndUsers("  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: " + dir_ +
                    "/ca.crt\n  client_allowed_sans: [prometheus.monitoring.svc]\n"));
  // client.crt has no SAN at all.
  EXPECT_EQ(Curl("/metrics", {"-u", "prometheus:s3cret", "--cert", dir_ + "/client.crt", "--key",
                              dir_ + "/client.key"})
                .code,
            "000");
}

TEST_F(WebConfig, CertificateReplacedOnDiskIsServedToTheNextConnection) {
  Start(TlsAndUsers());
  EXPECT_THAT(ServedSubject(), HasSubstr("podwait-test-server-1"));
  // As the kubelet updates a mounted Secret: new files, then a rename over the old ones.
  std::string out;
  RunCommand({"cp", dir_ + "/server-2.key", conf_dir_ + "/tls.key.new"}, &out);
  RunCommand({"cp", dir_ + "/server-2.crt", conf_dir_ + "/tls.crt.new"}, &out);
  ASSERT_EQ(std::rename((conf_dir_ + "/tls.key.new").c_str(), (conf_dir_ + "/tls.key").c_str()), 0);
  ASSERT_EQ(std::rename((conf_dir_ + "/tls.crt.new").c_str(), (conf_dir_ + "/tls.crt").c_str()), 0);
  EXPECT_THAT(ServedSubject(), HasSubstr("podwait-test-server-2"));
  EXPECT_EQ(Curl("/metrics", {"-u", "prometheus:s3cret"}).code, "200");
  EXPECT_TRUE(exporter_->Running());
}

// The file is re-read when it changes: a new user applies without a restart. A file that cannot
// be used (garbage, deleted) keeps the last good config serving, logged and shown by
// podwait_web_config_last_reload_successful, until it is fixed (exporter-toolkit, and podwait
// before, refused every TLS handshake meanwhile).
TEST_F(WebConfig, ChangedConfigAppliesWithoutRestart) {
  Start(TlsAndUsers());
  EXPECT_EQ(Curl("/metrics", {"-u", "prometheus:s3cret"}).code, "200");
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 1");
  const std::string grafana = std::string(
                                  "tls_server_config:\n  cert_file: tls.crt\n  key_file: "
                                  "tls.key\nbasic_auth_users:\n  grafana: ") +
                              kHash + "\n  prometheus: " + kHash + "\n";
  Replace("web.yml", grafana);
  EXPECT_EQ(Curl("/metrics", {"-u", "grafana:s3cret"}).code, "200");
  Replace("web.yml", "basic_auth_users:\n  grafana: not-a-hash\n");
  EXPECT_EQ(Curl("/metrics", {"-u", "grafana:s3cret"}).code, "200");  // the last good config
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 0");
  EXPECT_THAT(exporter_->ReadLog(), HasSubstr("not a bcrypt hash"));
  ASSERT_EQ(std::remove((conf_dir_ + "/web.yml").c_str()), 0);
  EXPECT_EQ(Curl("/metrics", {"-u", "grafana:s3cret"}).code, "200");
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 0");
  Replace("web.yml", TlsAndUsers());
  EXPECT_EQ(Curl("/metrics", {"-u", "prometheus:s3cret"}).code, "200");
  EXPECT_EQ(Curl("/metrics", {"-u", "grafana:s3cret"}).code, "401");
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 1");
  EXPECT_TRUE(exporter_->Running());
}

// The outage: the web config changed while the certificate was half written, the error
// was cached against the web config alone, and every handshake was refused until the web config
// changed again. Now the last good certificate is served meanwhile, and the fixed certificate
// is picked up by itself.
TEST_F(WebConfig, BadCertificateDuringAReloadRecoversWhenTheCertificateIsFixed) {
  Start(TlsAndUsers());
  EXPECT_THAT(ServedSubject(), HasSubstr("podwait-test-server-1"));
  Replace("tls.crt", "-----BEGIN CERTIFICATE-----\nMIIB");
  Replace("web.yml", TlsAndUsers() + "# renewed\n");
  EXPECT_THAT(ServedSubject(), HasSubstr("podwait-test-server-1"));
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 0");
  Replace("tls.key", ReadFile(dir_ + "/server-2.key"));
  Replace("tls.crt", ReadFile(dir_ + "/server-2.crt"));
  EXPECT_THAT(ServedSubject(), HasSubstr("podwait-test-server-2"));
  EXPECT_EQ(ReloadSuccessful(), "podwait_web_config_last_reload_successful 1");
}

TEST_F(WebConfig, ConfiguredHeadersOnEveryResponse) {
  Start(TlsAndUsers() +
        "http_server_config:\n  headers:\n    Strict-Transport-Security: max-age=31536000\n"
        "    X-Frame-Options: sameorigin\n    Content-Security-Policy: default-src 'self'\n");
  CurlResult metrics = Curl("/metrics", {"-u", "prometheus:s3cret"});
  EXPECT_THAT(metrics.headers, HasSubstr("Strict-Transport-Security: max-age=31536000"));
  EXPECT_THAT(metrics.headers, HasSubstr("X-Frame-Options: sameorigin"));
  EXPECT_THAT(metrics.headers, HasSubstr("Content-Security-Policy: default-src 'self'"));
  EXPECT_THAT(metrics.headers, HasSubstr("X-Content-Type-Options: nosniff"));
  // 401s carry them too.
  EXPECT_THAT(Curl("/metrics", {}).headers, HasSubstr("Strict-Transport-Security: max-age"));
  // The status page keeps its own, stricter policy.
  CurlResult page = Curl("/", {"-u", "prometheus:s3cret"});
  EXPECT_THAT(page.headers, HasSubstr("Content-Security-Policy: default-src 'none'"));
  EXPECT_THAT(page.headers, HasSubstr("X-Frame-Options: DENY"));
  EXPECT_THAT(page.headers, HasSubstr("Strict-Transport-Security: max-age=31536000"));
}

// A web config that cannot be used stops the exporter at start: exit 1, and the message names
// the file and the problem.
TEST_F(WebConfig, UnusableConfigStopsTheExporter) {
  const std::string d = MakeTempDir();
  struct Case {
    std::string name, text, problem;
  };
  const std::vector<Case> cases = {
      {"bad-yaml.yml", "basic_auth_users: [unclosed\n", "invalid YAML"},
      {"unknown-key.yml", "tls_server_config:\n  cert_file: a\n  certfile: b\n",
       "field certfile not found in tls_server_config"},
      {"plain-password.yml", "basic_auth_users:\n  alice: s3cret\n", "not a bcrypt hash"},
      {"missing-cert.yml", "tls_server_config:\n  cert_file: nope.crt\n  key_file: nope.key\n",
       "failed to read cert_file (" + d + "/nope.crt)"},
      {"bad-header.yml", "http_server_config:\n  headers:\n    Server: podwait\n",
       "Server\\\" can not be configured"},
      {"bad-client-auth.yml", "tls_server_config:\n  client_auth_type: Sometimes\n",
       "invalid ClientAuth: Sometimes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    WriteFile(d + "/" + c.name, c.text);
    std::string output;
    const int rc =
        RunCommand({BinaryPath("podwait-exporter"), "--web.listen-address=127.0.0.1:0",
                    "--kube.api-url=http://127.0.0.1:1", "--web.config.file=" + d + "/" + c.name},
                   &output);
    EXPECT_EQ(rc, 1) << output;
    EXPECT_THAT(output, HasSubstr(d + "/" + c.name));
    EXPECT_THAT(output, HasSubstr(c.problem));
  }
  std::string output;
  EXPECT_EQ(
      RunCommand({BinaryPath("podwait-exporter"), "--web.listen-address=127.0.0.1:0",
                  "--kube.api-url=http://127.0.0.1:1", "--web.config.file=" + d + "/absent.yml"},
                 &output),
      1);
  EXPECT_THAT(output, HasSubstr(d + "/absent.yml"));
  EXPECT_THAT(output, HasSubstr("No such file"));
}

}  // namespace
}  // namespace podwait::testing
