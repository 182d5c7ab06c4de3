// ParseKubeconfig on kubeconfigs of the shapes kind, minikube, EKS (aws eks get-token) and GKE
// (gke-gcloud-auth-plugin) write. Every kubeconfig here is made up: the names, servers, tokens
// and certificates are invented; only the layout follows those tools' output.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "exporter/common/base64.h"
#include "exporter/kube/kubeconfig.h"

namespace podwait {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::string kCaPem = "-----BEGIN CERTIFICATE-----\nmade-up-ca\n-----END CERTIFICATE-----\n";
const std::string kCertPem =
    "-----BEGIN CERTIFICATE-----\nmade-up-client\n-----END CERTIFICATE-----\n";
const std::string kKeyPem =
    "-----BEGIN RSA PRIVATE KEY-----\nmade-up-key\n-----END RSA PRIVATE KEY-----\n";

const std::string kFile = "/home/sre/.kube/config";

KubeEndpoint Parse(const std::string& yaml, const std::string& context = "") {
  KubeconfigParse parsed = ParseKubeconfig(yaml, kFile, context);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return parsed.value.value_or(KubeEndpoint{});
}

std::string ParseError(const std::string& yaml, const std::string& context = "") {
  KubeconfigParse parsed = ParseKubeconfig(yaml, kFile, context);
  EXPECT_FALSE(parsed.ok());
  return parsed.error;
}

// kind: CA and client certificate embedded.
const std::string kKind = R"(apiVersion: v1
kind: Config
preferences: {}
current-context: kind-podwait
clusters:
- cluster:
    certificate-authority-data: )" +
                          Base64Encode(kCaPem) + R"(
    server: https://127.0.0.1:39145
  name: kind-podwait
contexts:
- context:
    cluster: kind-podwait
    user: kind-podwait
  name: kind-podwait
users:
- name: kind-podwait
  user:
    client-certificate-data: )" +
                          Base64Encode(kCertPem) + R"(
    client-key-data: )" + Base64Encode(kKeyPem) +
                          "\n";

TEST(Kubeconfig, KindEmbedsTheCaAndTheClientCertificate) {
  KubeEndpoint ep = Parse(kKind);
  EXPECT_EQ(ep.api_url, "https://127.0.0.1:39145");
  EXPECT_EQ(ep.context, "kind-podwait");
  EXPECT_EQ(ep.cluster, "kind-podwait");
  EXPECT_EQ(ep.user, "kind-podwait");
  EXPECT_EQ(ep.tls.ca_pem, kCaPem);
  EXPECT_EQ(ep.tls.cert_pem, kCertPem);
  EXPECT_EQ(ep.tls.key_pem, kKeyPem);
  EXPECT_EQ(ep.tls.ca_file, "");
  EXPECT_FALSE(ep.tls.insecure_skip_verify);
  EXPECT_EQ(ep.token, "");
  EXPECT_EQ(ep.token_file, "");
  EXPECT_FALSE(ep.exec);
  EXPECT_THAT(ep.ignored, IsEmpty());
}

// minikube: files, one of them relative here (minikube writes absolute paths; a kubeconfig copied
// with its certificates uses relative ones), extensions, a namespace.
TEST(Kubeconfig, MinikubeFilesRelativeToTheKubeconfigsDirectory) {
  KubeEndpoint ep = Parse(R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority: ../.minikube/ca.crt
    extensions:
    - extension:
        last-update: Mon, 06 May 2024 10:00:00 UTC
        provider: minikube.sigs.k8s.io
        version: v1.33.0
      name: cluster_info
    server: https://192.168.49.2:8443/
  name: minikube
contexts:
- context:
    cluster: minikube
    namespace: tidb
    user: minikube
  name: minikube
current-context: minikube
kind: Config
users:
- name: minikube
  user:
    client-certificate: /home/sre/.minikube/profiles/minikube/client.crt
    client-key: ./profiles/client.key
)");
  EXPECT_EQ(ep.api_url, "https://192.168.49.2:8443");  // no trailing slash
  EXPECT_EQ(ep.tls.ca_file, "/home/sre/.kube/../.minikube/ca.crt");
  EXPECT_EQ(ep.tls.cert_file, "/home/sre/.minikube/profiles/minikube/client.crt");
  EXPECT_EQ(ep.tls.key_file, "/home/sre/.kube/profiles/client.key");
  EXPECT_EQ(ep.tls.ca_pem, "");
  EXPECT_THAT(ep.ignored, ElementsAre(AllOf(HasSubstr("namespace"), HasSubstr("tidb"))));
}

// The layout `aws eks update-kubeconfig` and `gcloud container clusters get-credentials` write:
// one cluster (CA embedded), one context and one user, all called `name`, the user an exec plugin.
std::string ManagedClusterKubeconfig(const std::string& name, const std::string& server,
                                     const std::string& exec) {
  std::string text = R"(apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {ca}
    server: {server}
  name: {name}
contexts:
- context:
    cluster: {name}
    user: {name}
  name: {name}
current-context: {name}
kind: Config
preferences: {}
users:
- name: {name}
  user:
    exec:
{exec})";
  for (const auto& [key, value] : std::map<std::string, std::string>{{"{ca}", Base64Encode(kCaPem)},
                                                                     {"{server}", server},
                                                                     {"{name}", name},
                                                                     {"{exec}", exec}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), value);
      at += value.size();
    }
  }
  return text;
}

// EKS: aws eks get-token as an exec plugin.
TEST(Kubeconfig, EksExecPlugin) {
  KubeEndpoint ep = Parse(ManagedClusterKubeconfig(
      "arn:aws:eks:us-west-2:000000000000:cluster/tidb-prod",
      "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com",
      R"(      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - us-west-2
      - eks
      - get-token
      - --cluster-name
      - tidb-prod
      - --output
      - json
      command: aws
      env:
      - name: AWS_PROFILE
        value: sre
      interactiveMode: IfAvailable
      provideClusterInfo: false
)"));
  EXPECT_EQ(ep.context, "arn:aws:eks:us-west-2:000000000000:cluster/tidb-prod");
  ASSERT_TRUE(ep.exec);
  EXPECT_EQ(ep.exec->api_version, kExecApiV1beta1);
  EXPECT_EQ(ep.exec->command, "aws");  // a bare name: looked up in PATH
  EXPECT_THAT(ep.exec->args, ElementsAre("--region", "us-west-2", "eks", "get-token",
                                         "--cluster-name", "tidb-prod", "--output", "json"));
  EXPECT_THAT(ep.exec->env, ElementsAre(Pair("AWS_PROFILE", "sre")));
  EXPECT_FALSE(ep.exec->provide_cluster_info);
  EXPECT_EQ(ep.tls.ca_pem, kCaPem);
  EXPECT_EQ(ep.token, "");
}

// GKE: gke-gcloud-auth-plugin, which asks for the cluster's details.
TEST(Kubeconfig, GkeExecPluginWithClusterInfo) {
  KubeEndpoint ep = Parse(
      ManagedClusterKubeconfig("gke_tidb-project_us-central1_tidb-prod", "https://203.0.113.10",
                               R"(      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
)"));
  ASSERT_TRUE(ep.exec);
  EXPECT_EQ(ep.exec->command, "gke-gcloud-auth-plugin");
  EXPECT_THAT(ep.exec->install_hint, HasSubstr("Install gke-gcloud-auth-plugin"));
  EXPECT_TRUE(ep.exec->provide_cluster_info);
  EXPECT_EQ(ep.exec->server, "https://203.0.113.10");
  EXPECT_EQ(ep.exec->certificate_authority_pem, kCaPem);
}

const std::string kTwoContexts = R"(
current-context: staging
contexts:
- name: staging
  context: {cluster: staging, user: sre}
- name: prod
  context: {cluster: prod, user: sre, namespace: ""}
clusters:
- name: staging
  cluster: {server: "https://staging.example:6443"}
- name: prod
  cluster: {server: "https://prod.example:6443", insecure-skip-tls-verify: true}
users:
- name: sre
  user: {token: made-up-token}
)";

TEST(Kubeconfig, CurrentContextOrTheOneAskedFor) {
  EXPECT_EQ(Parse(kTwoContexts).api_url, "https://staging.example:6443");
  KubeEndpoint prod = Parse(kTwoContexts, "prod");
  EXPECT_EQ(prod.context, "prod");
  EXPECT_EQ(prod.api_url, "https://prod.example:6443");
  EXPECT_TRUE(prod.tls.insecure_skip_verify);
  EXPECT_EQ(prod.token, "made-up-token");
}

TEST(Kubeconfig, MissingContextClusterOrUserIsNamed) {
  EXPECT_EQ(ParseError(kTwoContexts, "dev"),
            kFile + ": context \"dev\" not found (contexts: staging, prod)");
  std::string no_current = kTwoContexts;
  no_current.replace(no_current.find("current-context: staging"), 24, "");
  EXPECT_THAT(ParseError(no_current),
              AllOf(HasSubstr(kFile + ": no current-context"), HasSubstr("--kube.context"),
                    HasSubstr("staging, prod")));
  std::string no_cluster = kTwoContexts;
  no_cluster.replace(no_cluster.find("cluster: prod,"), 14, "cluster: gone,");
  EXPECT_EQ(ParseError(no_cluster, "prod"),
            kFile + ": cluster \"gone\" of context \"prod\" not found (clusters: staging, prod)");
  std::string no_user = kTwoContexts;
  no_user.replace(no_user.find("- name: sre"), 11, "- name: ops");
  EXPECT_EQ(ParseError(no_user),
            kFile + ": user \"sre\" of context \"staging\" not found (users: ops)");
  EXPECT_EQ(ParseError("current-context: x\n"),
            kFile + ": context \"x\" not found (contexts: none)");
}

TEST(Kubeconfig, AContextWithoutAUserSendsNoCredentials) {
  KubeEndpoint ep = Parse(R"(
current-context: proxy
contexts: [{name: proxy, context: {cluster: local}}]
clusters: [{name: local, cluster: {server: "http://127.0.0.1:8001"}}]
)");
  EXPECT_EQ(ep.api_url, "http://127.0.0.1:8001");
  EXPECT_EQ(ep.user, "");
  EXPECT_EQ(ep.token, "");
  EXPECT_FALSE(ep.exec);
}

// A kubeconfig around one user (and a cluster with extra settings), for the user tests.
std::string WithUser(const std::string& user, const std::string& cluster_extra = "") {
  return R"(
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters:
- name: k
  cluster:
    server: https://k.example
)" + cluster_extra +
         R"(users:
- name: u
  user:
)" + user;
}

TEST(Kubeconfig, BadClusterSettings) {
  EXPECT_EQ(ParseError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {certificate-authority: ca.crt}}]
)"),
            kFile + ": cluster \"k\" has no server");
  EXPECT_THAT(ParseError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: "k.example:6443"}}]
)"),
              HasSubstr("not an http(s) URL"));
  EXPECT_THAT(ParseError(WithUser("    token: t\n", "    insecure-skip-tls-verify: maybe\n")),
              HasSubstr("insecure-skip-tls-verify is not true or false"));
}

TEST(Kubeconfig, AuthProviderIsRefusedWithWhatToDoInstead) {
  const std::string error = ParseError(WithUser(R"(    auth-provider:
      name: gcp
      config:
        access-token: made-up
        cmd-path: /usr/lib/google-cloud-sdk/bin/gcloud
)"));
  EXPECT_THAT(error, AllOf(HasSubstr(kFile), HasSubstr("user \"u\""),
                           HasSubstr("auth-provider \"gcp\""), HasSubstr("not support"),
                           HasSubstr("exec credential plugin"), HasSubstr("kubectl proxy")));
}

TEST(Kubeconfig, BasicAuthAndImpersonationAreRefused) {
  EXPECT_THAT(ParseError(WithUser("    username: admin\n    password: made-up\n")),
              AllOf(HasSubstr("username/password"), HasSubstr("kubectl proxy")));
  EXPECT_THAT(ParseError(WithUser("    token: t\n    as: someone-else\n")),
              HasSubstr("impersonates (as)"));
  EXPECT_THAT(ParseError(WithUser("    token: t\n    as-groups: [system:masters]\n")),
              HasSubstr("impersonates (as-groups)"));
}

TEST(Kubeconfig, BadEmbeddedData) {
  EXPECT_EQ(ParseError(WithUser("    client-certificate-data: " + Base64Encode(kCertPem) +
                                "\n    client-key-data: not*base64\n")),
            kFile + ": user \"u\": client-key-data is not valid base64");
  EXPECT_THAT(ParseError(WithUser("    token: t\n", "    certificate-authority-data: " +
                                                        Base64Encode("not a certificate") + "\n")),
              AllOf(HasSubstr("cluster \"k\": certificate-authority-data"), HasSubstr("PEM")));
  EXPECT_THAT(ParseError(WithUser("    client-certificate-data: " + Base64Encode(kCertPem) + "\n")),
              HasSubstr("has a client certificate but no client-key"));
}

TEST(Kubeconfig, EmbeddedDataWinsOverAFile) {
  KubeEndpoint ep = Parse(WithUser("    token: t\n",
                                   "    certificate-authority: ca.crt\n"
                                   "    certificate-authority-data: " +
                                       Base64Encode(kCaPem) + "\n"));
  EXPECT_EQ(ep.tls.ca_pem, kCaPem);
  EXPECT_EQ(ep.tls.ca_file, "");
  EXPECT_THAT(ep.ignored, ElementsAre(HasSubstr("certificate-authority is ignored")));
}

TEST(Kubeconfig, TokenFileWinsOverToken) {
  KubeEndpoint ep = Parse(WithUser("    token: made-up\n    tokenFile: tokens/sre\n"));
  EXPECT_EQ(ep.token_file, "/home/sre/.kube/tokens/sre");
  EXPECT_EQ(ep.token, "");
}

TEST(Kubeconfig, ExecSettings) {
  const std::string exec = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n";
  KubeEndpoint ep = Parse(WithUser(exec + "      command: bin/get-token\n"
                                          "      interactiveMode: Never\n"));
  ASSERT_TRUE(ep.exec);
  EXPECT_EQ(ep.exec->command, "/home/sre/.kube/bin/get-token");  // has a '/': relative to the file
  EXPECT_EQ(ep.exec->api_version, kExecApiV1);

  EXPECT_THAT(ParseError(WithUser("    exec:\n      command: aws\n")),
              HasSubstr("user \"u\": exec has no apiVersion"));
  EXPECT_THAT(ParseError(WithUser("    exec:\n      apiVersion: "
                                  "client.authentication.k8s.io/v1alpha1\n      command: x\n")),
              HasSubstr("v1alpha1\" is not supported"));
  EXPECT_THAT(ParseError(WithUser(exec)), HasSubstr("exec has no command"));
  EXPECT_THAT(ParseError(WithUser(exec + "      command: x\n      interactiveMode: Always\n")),
              HasSubstr("needs a terminal"));
  EXPECT_THAT(ParseError(WithUser(exec + "      command: x\n      env: [{value: v}]\n")),
              HasSubstr("env holds an item without a name"));
  EXPECT_THAT(ParseError(WithUser(exec + "      command: x\n    token: t\n")),
              HasSubstr("both exec and token"));
}

TEST(Kubeconfig, SettingsReadButNotUsed) {
  KubeEndpoint ep = Parse(WithUser("    token: t\n",
                                   "    tls-server-name: api.internal\n"
                                   "    proxy-url: socks5://127.0.0.1:1080\n"));
  EXPECT_THAT(ep.ignored, ElementsAre(HasSubstr("tls-server-name \"api.internal\" is not used"),
                                      HasSubstr("proxy-url is not used")));
}

TEST(Kubeconfig, NotAKubeconfig) {
  EXPECT_THAT(ParseError("clusters: [unclosed"), HasSubstr(kFile + ": not valid YAML"));
  EXPECT_THAT(ParseError("- a list"), HasSubstr("not a kubeconfig"));
  EXPECT_THAT(ParseError(""), HasSubstr("not a kubeconfig"));
  EXPECT_THAT(ParseError("current-context: [1, 2]\n"),
              HasSubstr("current-context is not a string"));
  EXPECT_THAT(ParseError(R"(
current-context: c
contexts: [{name: c, context: {cluster: k}}]
clusters: [{name: k, cluster: {server: [1]}}]
)"),
              HasSubstr("cluster \"k\": server is not a string"));
}

// kubectl's --cluster and --user replace the context's; --server makes a context (and the
// cluster's server) optional.
TEST(Kubeconfig, ClusterAndUserAsKubectlsFlagsChooseThem) {
  const std::string two_users = kTwoContexts + "- name: admin\n  user: {token: made-up-admin}\n";
  KubeconfigParse other = ParseKubeconfig(two_users, kFile, KubeconfigChoice{"", "prod", "admin"});
  ASSERT_TRUE(other.ok()) << other.error;
  EXPECT_EQ(other->context, "staging");
  EXPECT_EQ(other->cluster, "prod");
  EXPECT_EQ(other->api_url, "https://prod.example:6443");
  EXPECT_EQ(other->token, "made-up-admin");
  EXPECT_EQ(ParseKubeconfig(two_users, kFile, KubeconfigChoice{"", "gone", ""}).error,
            kFile + ": cluster \"gone\" (--cluster) not found (clusters: staging, prod)");
  EXPECT_EQ(ParseKubeconfig(two_users, kFile, KubeconfigChoice{"", "", "nobody"}).error,
            kFile + ": user \"nobody\" (--user) not found (users: sre, admin)");

  std::string no_current = kTwoContexts;
  no_current.replace(no_current.find("current-context: staging"), 24, "");
  KubeconfigParse by_server =
      ParseKubeconfig(no_current, kFile, KubeconfigChoice{"", "", "", true});
  ASSERT_TRUE(by_server.ok()) << by_server.error;
  EXPECT_EQ(by_server->api_url, "") << "the caller puts --server there";
  EXPECT_EQ(by_server->token, "");
  KubeconfigParse by_cluster =
      ParseKubeconfig(no_current, kFile, KubeconfigChoice{"", "prod", "sre"});
  ASSERT_TRUE(by_cluster.ok()) << by_cluster.error;
  EXPECT_EQ(by_cluster->api_url, "https://prod.example:6443");
  EXPECT_EQ(by_cluster->token, "made-up-token");
  // An empty file is a kubeconfig only when --server says where the server is.
  EXPECT_TRUE(ParseKubeconfig("", kFile, KubeconfigChoice{"", "", "", true}).ok());
  EXPECT_TRUE(ParseKubeconfig(R"(
clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: k}}]
current-context: c
)",
                              kFile, KubeconfigChoice{"", "", "", true})
                  .ok())
      << "a cluster without a server, given --server";
}

// A file that is not a kubeconfig says so, naming the file and what is wrong, rather than
// asking for a context it could never have.
TEST(Kubeconfig, GarbageIsNamedForWhatItIs) {
  EXPECT_EQ(ParseError("hello: world\n"),
            kFile + ": not a kubeconfig: it has no clusters, contexts, users or current-context");
  EXPECT_EQ(ParseError("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n"),
            kFile + ": not a kubeconfig: its kind is \"Pod\", a kubeconfig's is Config");
  EXPECT_THAT(ParseError("apiVersion: v1\nkind: Config\nclusters: 5\n"),
              HasSubstr(kFile + ": clusters is not a list"));
  EXPECT_THAT(ParseError("users: {a: b}\ncurrent-context: x\n"),
              HasSubstr(kFile + ": users is not a list"));
  EXPECT_EQ(ParseError(""), kFile + ": empty: not a kubeconfig (no clusters, contexts or users)");
  // Binary bytes: the YAML error, with only printable characters of it.
  const std::string binary("\x89PNG\r\n\x1a\n\x00\x00\"\\\xff\xfe", 14);
  const std::string err = ParseError(binary);
  EXPECT_THAT(err, HasSubstr(kFile + ": not valid YAML, so not a kubeconfig"));
  for (char c : err) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << err;
}

TEST(Kubeconfig, DirectoryOf) {
  EXPECT_EQ(DirectoryOf("/home/sre/.kube/config"), "/home/sre/.kube");
  EXPECT_EQ(DirectoryOf("kube/config"), "kube");
  EXPECT_EQ(DirectoryOf("config"), ".");
  EXPECT_EQ(DirectoryOf("/config"), "/");
  KubeconfigParse parsed = ParseKubeconfig(WithUser("    tokenFile: t\n"), "/config", "");
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.value->token_file, "/t");
}

}  // namespace
}  // namespace podwait
