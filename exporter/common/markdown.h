#pragma once

#include <string>
#include <string_view>

namespace podwait {

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view s);

// The anchor a heading gets, as GitHub makes it: lower case, letters, digits, '-' and '_' kept,
// spaces to '-', everything else dropped ("## PodCapacityShortfall" -> "podcapacityshortfall").
std::string HeadingSlug(std::string_view heading);

// Renders the Markdown subset rules/RUNBOOK.md uses to an HTML fragment (no <html>/<body>):
// ATX headings with GitHub's ids, paragraphs, "- " lists whose items continue on indented lines,
// fenced code blocks, pipe tables, and inline `code`, **strong**, *emphasis* and [links](url).
// A table row whose first cell is one code span gets the id "<first header>-<code>" (the class
// table's `capacity` row: "class-capacity"), so each row can be linked to. Raw HTML in the input
// is escaped, never passed through. Pure.
std::string RenderMarkdown(std::string_view markdown);

}  // namespace podwait
