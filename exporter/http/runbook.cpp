#include "exporter/http/runbook.h"

#include "exporter/http/views.h"
#include "podwait/version.h"

namespace podwait {
namespace {

constexpr const char* kRunbookStyle = R"(
:root{--bg:#fbfbfd;--fg:#1d1d22;--muted:#6b6b76;--line:#e4e4ea;--code:#f1f1f5;--hl:#fff6d6}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#e8e8ee;--muted:#9a9aa6;--line:#33333c;--code:#24242b;--hl:#3a3320}}
*{box-sizing:border-box}body{margin:0 auto;max-width:960px;padding:12px 18px 60px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:#2f6db5}nav{font-size:13px;color:var(--muted)}
h1{font-size:24px}h2{font-size:19px;margin-top:32px;padding-top:12px;border-top:1px solid var(--line)}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);padding:1px 4px;border-radius:4px}
pre{background:var(--code);padding:10px 12px;border-radius:6px;overflow-x:auto}pre code{padding:0}
table{border-collapse:collapse;display:block;overflow-x:auto}td,th{border:1px solid var(--line);padding:4px 8px;vertical-align:top;text-align:left;font-size:14px}
:target{background:var(--hl)}
)";

}  // namespace

const std::string& RunbookPage() {
  static const std::string page = [] {
    std::string h =
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<title>podwait runbook</title><style>";
    h += kRunbookStyle;
    h += "</style></head><body><nav><a href=\"./\">status page</a> · podwait ";
    h += kVersion;
    h += "</nav>\n";
    h += kRunbookFragment;
    h += "</body></html>\n";
    return h;
  }();
  return page;
}

std::vector<std::pair<std::string, std::string>> RunbookPageHeaders() {
  return StyleOnlyPageHeaders(kRunbookStyle);
}

}  // namespace podwait
