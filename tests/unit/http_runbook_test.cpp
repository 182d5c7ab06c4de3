#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "exporter/common/base64.h"
#include "exporter/http/runbook.h"
#include "exporter/model/vocabulary.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// The policy allows exactly the page's own style (its SHA-256), nothing else.
TEST(Runbook, PolicyAllowsItsStyleOnly) {
  const std::string& page = RunbookPage();
  const size_t open = page.find("<style>") + 7;
  const std::string style = page.substr(open, page.find("</style>") - open);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(style.data(), style.size(), md, &len, EVP_sha256(), nullptr);
  const std::string hash = Base64Encode(std::string_view(reinterpret_cast<char*>(md), len));
  const auto headers = RunbookPageHeaders();
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].first, "Content-Security-Policy");
  EXPECT_EQ(headers[0].second,
            "default-src 'none'; style-src 'sha256-" + hash +
                "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  EXPECT_THAT(page, Not(HasSubstr("<script")));
}

}  // namespace
}  // namespace podwait
