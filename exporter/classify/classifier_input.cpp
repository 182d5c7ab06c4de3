#include "exporter/classify/classifier_input.h"

#include <utility>

namespace podwait::rules {

std::string Cut(std::string s) {
  if (s.size() <= kMaxEvidenceLength) return s;
  size_t n = kMaxEvidenceLength;
  // Do not split a UTF-8 sequence: back up over continuation bytes.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  return s;
}

Classification Waiting(Stage stage, WaitClass c, std::string_view why, Timestamp start,
                       std::string evidence, Timestamp evidence_since) {
  Classification out;
  out.waiting = true;
  out.stage = stage;
  out.wait_class = c;
  out.reason = std::string(why);
  out.stage_start = start;
  out.evidence = Cut(std::move(evidence));
  if (out.evidence.find(kEvidenceAgo) != std::string::npos) out.evidence_since = evidence_since;
  return out;
}

Classification NotWaiting(std::string evidence) {
  Classification out;
  out.waiting = false;
  out.evidence = std::move(evidence);
  return out;
}

bool Past(const Context& ctx, Timestamp since, Timestamp limit) {
  const Timestamp turns = since + limit + 1;  // the first millisecond with now - since > limit
  if (ctx.now >= turns) return true;
  if (ctx.recheck_at == 0 || turns < ctx.recheck_at) ctx.recheck_at = turns;
  return false;
}

}  // namespace podwait::rules
