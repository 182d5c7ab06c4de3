// Build step: renders rules/RUNBOOK.md to HTML and writes it as a C++ source file, so the
// exporter serves the runbook of its own version at /runbook without reading files at run time.
//
//   podwait-runbook-html RUNBOOK.md OUT.cpp
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "exporter/common/markdown.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: podwait-runbook-html RUNBOOK.md OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "podwait-runbook-html: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::ostringstream markdown;
  markdown << in.rdbuf();
  const std::string html = podwait::RenderMarkdown(markdown.str());
  constexpr const char* kDelimiter = "podwait_runbook";
  if (html.find(std::string(")") + kDelimiter + "\"") != std::string::npos) {
    std::cerr << "podwait-runbook-html: the rendered runbook contains the raw string's end\n";
    return 1;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from rules/RUNBOOK.md by podwait-runbook-html at build time.\n"
         "#include \"exporter/http/runbook.h\"\n\n"
         "namespace podwait {\n"
         "extern const std::string_view kRunbookFragment;\n"
         "const std::string_view kRunbookFragment = R\""
      << kDelimiter << "(" << html << ")" << kDelimiter << "\";\n}  // namespace podwait\n";
  out.close();
  if (!out) {
    std::cerr << "podwait-runbook-html: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
