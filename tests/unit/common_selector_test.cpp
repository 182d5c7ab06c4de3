// Label and field selectors as the API server reads them (kubectl -l, --field-selector).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "exporter/common/selector.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

bool Selects(const std::string& selector, const std::map<std::string, std::string>& labels) {
  Result<Selector> s = Selector::ParseLabels(selector);
  EXPECT_TRUE(s.ok()) << s.error;
  return s.ok() && s.value->Matches(labels);
}

TEST(LabelSelector, EqualityAndSetRequirements) {
  const std::map<std::string, std::string> tikv = {{"app.kubernetes.io/component", "tikv"},
                                                   {"app.kubernetes.io/instance", "demo"}};
  EXPECT_TRUE(Selects("", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component=tikv", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component==tikv", tikv));
  EXPECT_FALSE(Selects("app.kubernetes.io/component=tidb", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component!=tidb", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component in (tidb, tikv)", tikv));
  EXPECT_FALSE(Selects("app.kubernetes.io/component notin (tidb,tikv)", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/instance,!pingcap.com/managed-by", tikv));
  EXPECT_FALSE(Selects("pingcap.com/managed-by", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component=tikv, app.kubernetes.io/instance=demo", tikv));
  EXPECT_FALSE(Selects("x!=", {{"x", ""}}));
}

TEST(LabelSelector, MalformedIsAnErrorNamingTheRequirement) {
  for (const char* bad :
       {"a in (b", "a inn (b)", "=b", "a b=c", "a=b c", "in (x)", "a=b,", ",a", "!"}) {
    Result<Selector> s = Selector::ParseLabels(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.error, HasSubstr("label selector")) << bad;
  }
}

// A field the object does not set reads as "" (the simulator's reader), so != matches it.
bool SelectsFields(const std::string& selector, const std::map<std::string, std::string>& fields) {
  Result<Selector> s = Selector::ParseFields(selector);
  EXPECT_TRUE(s.ok()) << s.error;
  static const std::string kUnset;
  return s.ok() && s->MatchesWith([&fields](const std::string& key) {
    auto it = fields.find(key);
    return it == fields.end() ? &kUnset : &it->second;
  });
}

TEST(FieldSelector, EqualityOnlyAnyValue) {
  const std::map<std::string, std::string> event = {
      {"involvedObject.kind", "Pod"}, {"involvedObject.fieldPath", "spec.containers{tikv}"}};
  EXPECT_TRUE(SelectsFields("involvedObject.kind=Pod", event));
  EXPECT_TRUE(SelectsFields("involvedObject.kind==Pod,type!=Warning", event));
  EXPECT_FALSE(SelectsFields("involvedObject.kind!=Pod", event));
  EXPECT_TRUE(SelectsFields("involvedObject.fieldPath=spec.containers{tikv}", event));
  EXPECT_TRUE(SelectsFields("spec.nodeName=", event));
}

TEST(FieldSelector, SetAndExistenceRequirementsAreErrors) {
  for (const char* bad : {"reason", "!reason", "reason in (a)", "reason notin (a)", "=x"}) {
    Result<Selector> s = Selector::ParseFields(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.error, HasSubstr("field selector")) << bad;
  }
  EXPECT_EQ(Selector::ParseFields("a=b, c!=d").value->keys(),
            (std::vector<std::string_view>{"a", "c"}));
}

}  // namespace
}  // namespace podwait
