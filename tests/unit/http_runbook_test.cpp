#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/http/runbook.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

// The status page links each class to runbook#class-<name>: every class has that row.
TEST(Runbook, EveryClassHasAnAnchor) {
  for (const ClassInfo& c : kClasses) {
    EXPECT_THAT(std::string(kRunbookFragment),
                HasSubstr("<tr id=\"class-" + std::string(c.name) + "\">"))
        << c.name;
  }
}

// The anchors the rules' runbook_url use (tests/checks/runbook_links_test.sh follows each one).
TEST(Runbook, AlertSectionsKeepTheirGithubAnchors) {
  EXPECT_THAT(RunbookPage(),
              HasSubstr("<h2 id=\"podcapacityshortfall\">PodCapacityShortfall</h2>"));
  EXPECT_THAT(RunbookPage(), HasSubstr("<h2 id=\"classes\">Classes</h2>"));
  EXPECT_THAT(RunbookPage(), HasSubstr("<a href=\"./\">status page</a>"));
}

TEST(Runbook, PolicyAllowsItsStyleOnly) {
  bool csp = false;
  for (const auto& [name, value] : RunbookPageHeaders()) {
    if (name == "Content-Security-Policy") {
      csp = true;
      EXPECT_THAT(value, HasSubstr("default-src 'none'; style-src 'sha256-"));
    }
  }
  EXPECT_TRUE(csp);
}

}  // namespace
}  // namespace podwait
