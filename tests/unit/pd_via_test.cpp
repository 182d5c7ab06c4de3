// PD through the API server's service proxy (pd/via.h): which PD addresses are cluster Services,
// the proxy path kubectl itself uses, and the API server's own answers told from PD's.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/pd/via.h"

namespace podwait {
namespace {

std::string ProxyOf(const std::string& base_url) {
  std::optional<PdServiceAddress> s = PdServiceOf(base_url);
  return s ? ServiceProxyBaseUrl("https://10.0.0.1:6443/", *s) : "direct";
}

TEST(PdViaTest, ClusterServicesGoThroughTheServiceProxy) {
  // v1's default template, a v2 Cluster's status.pd, the fully qualified forms.
  EXPECT_EQ(ProxyOf("http://basic-pd.tidb:2379"),
            "https://10.0.0.1:6443/api/v1/namespaces/tidb/services/basic-pd:2379/proxy");
  EXPECT_EQ(ProxyOf("https://pd-pd.tidb-v2:2379/"),
            "https://10.0.0.1:6443/api/v1/namespaces/tidb-v2/services/https:pd-pd:2379/proxy");
  EXPECT_EQ(ProxyOf("http://Basic-PD.tidb.svc:2379"),
            "https://10.0.0.1:6443/api/v1/namespaces/tidb/services/basic-pd:2379/proxy");
  EXPECT_EQ(ProxyOf("http://basic-pd.tidb.svc.cluster.local"),
            "https://10.0.0.1:6443/api/v1/namespaces/tidb/services/basic-pd:80/proxy");
  EXPECT_EQ(ProxyOf("http://basic-pd.tidb:2379/prefix/"),
            "https://10.0.0.1:6443/api/v1/namespaces/tidb/services/basic-pd:2379/proxy/prefix");
}

TEST(PdViaTest, OtherAddressesStayDirect) {
  for (const char* url :
       {"http://127.0.0.1:2379", "http://10.0.0.7:2379/pd/ns/c", "http://[::1]:2379",
        "http://basic-pd:2379", "http://localhost:2379", "https://pd.example.com:2379",
        "http://user:secret@basic-pd.tidb:2379", "http://basic-pd.tidb:http", "ftp://pd.ns:21",
        "basic-pd.tidb:2379", "http://bad_name.tidb:2379", "http://basic-pd.tidb:2379/?x=1"}) {
    EXPECT_EQ(ProxyOf(url), "direct") << url;
  }
}

HttpResponse Answer(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(PdViaTest, TheApiServersOwnAnswersAreNotPds) {
  // What kube-apiserver answers a user without get on services/proxy.
  auto forbidden = ApiServerStatusOf(Answer(
      403,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"services \"basic-pd:2379\" is forbidden: User \"alice\" cannot get resource \"services/proxy\" in API group \"\" in the namespace \"tidb\"","reason":"Forbidden","details":{"name":"basic-pd:2379","kind":"services"},"code":403})"));
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->code, 403);
  EXPECT_EQ(forbidden->reason, "Forbidden");
  EXPECT_TRUE(forbidden->forbidden());
  EXPECT_THAT(forbidden->message, ::testing::HasSubstr("services/proxy"));
  auto no_endpoints = ApiServerStatusOf(Answer(
      503,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no endpoints available for service \"basic-pd:2379\"","reason":"ServiceUnavailable","code":503})"));
  ASSERT_TRUE(no_endpoints);
  EXPECT_FALSE(no_endpoints->forbidden());
  // PD's own answers, passed through: its 503 "no leader", its JSON, any 2xx.
  EXPECT_FALSE(ApiServerStatusOf(Answer(503, R"("no leader")")));
  EXPECT_FALSE(ApiServerStatusOf(Answer(500, R"({"kind":"Status"})")));
  EXPECT_FALSE(ApiServerStatusOf(
      Answer(200, R"({"kind":"Status","apiVersion":"v1","status":"Success","code":200})")));
  EXPECT_FALSE(ApiServerStatusOf(Answer(502, std::string(100000, '[') + "\"Status\"")));
}

TEST(PdViaTest, TheGrantNamesTheNamespaceAndTheSubresource) {
  EXPECT_THAT(ServiceProxyGrant("tidb"),
              ::testing::HasSubstr("kubectl -n tidb create role pd-proxy --verb=get "
                                   "--resource=services/proxy"));
}

}  // namespace
}  // namespace podwait
