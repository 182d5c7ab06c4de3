#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/markdown.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Markdown, HeadingsGetGithubIds) {
  EXPECT_EQ(RenderMarkdown("## PodCapacityShortfall\n"),
            "<h2 id=\"podcapacityshortfall\">PodCapacityShortfall</h2>\n");
  EXPECT_EQ(HeadingSlug("What to do (v2), now!"), "what-to-do-v2-now");
  EXPECT_EQ(HeadingSlug("wait_for-pd"), "wait_for-pd");
}

TEST(Markdown, ParagraphsJoinLinesAndInlineMarkup) {
  EXPECT_EQ(RenderMarkdown("**Meaning.** A pod `a<b` waits,\nsee [Classes](#classes) and *not* "
                           "this.\n\nNext."),
            "<p><strong>Meaning.</strong> A pod <code>a&lt;b</code> waits, see <a "
            "href=\"#classes\">Classes</a> and <em>not</em> this.</p>\n<p>Next.</p>\n");
}

TEST(Markdown, ListItemsContinueOnIndentedLines) {
  EXPECT_EQ(RenderMarkdown("- one\n  more\n- two\nafter"),
            "<ul>\n<li>one more</li>\n<li>two</li>\n</ul>\n<p>after</p>\n");
}

TEST(Markdown, CodeBlocksAreEscapedAndNotMarkedUp) {
  EXPECT_EQ(RenderMarkdown("```promql\nup{job=~\".*podwait.*\"} < 1\n```\n"),
            "<pre><code class=\"language-promql\">up{job=~&quot;.*podwait.*&quot;} &lt; 1\n"
            "</code></pre>\n");
}

TEST(Markdown, TablesWithRowIdsFromACodeFirstCell) {
  const std::string html = RenderMarkdown(
      "| class | expected |\n|---|---|\n| `capacity` | no, `a|b` |\n| plain | yes |\n");
  EXPECT_THAT(html, HasSubstr("<thead><tr><th>class</th><th>expected</th></tr></thead>"));
  EXPECT_THAT(html, HasSubstr("<tr id=\"class-capacity\"><td><code>capacity</code></td><td>no, "
                              "<code>a|b</code></td></tr>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>plain</td><td>yes</td></tr>"));
}

TEST(Markdown, RawHtmlAndScriptLinksAreNeutralized) {
  const std::string html = RenderMarkdown("<script>x</script> [a](javascript:alert(1))");
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("javascript:")));
  EXPECT_THAT(RenderMarkdown("[a](https://x.example/p)"),
              HasSubstr("href=\"https://x.example/p\""));
}

TEST(Markdown, UnclosedMarkupStaysText) {
  EXPECT_EQ(RenderMarkdown("a `b and **c and [d"), "<p>a `b and **c and [d</p>\n");
  EXPECT_EQ(RenderMarkdown("```\nno end"), "<pre><code>no end\n</code></pre>\n");
}

}  // namespace
}  // namespace podwait
