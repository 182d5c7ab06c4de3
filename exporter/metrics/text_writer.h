#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "exporter/metrics/contract.h"

namespace podwait {

// Writes the Prometheus text exposition format (0.0.4) straight into a string, for families with
// many series (one per waiting pod): no per-series label vectors, no intermediate stream. Pure.
class TextWriter {
 public:
  using Label = std::pair<std::string_view, std::string_view>;

  explicit TextWriter(std::string* out) : out_(out) {}

  // "# HELP name help\n# TYPE name type\n"
  void Family(std::string_view name, std::string_view help, std::string_view type);
  void Family(const MetricInfo& metric) { Family(metric.name, metric.help, metric.type); }
  // name{k="v",...} value\n (label values escaped; no braces without labels)
  void Sample(std::string_view name, std::initializer_list<Label> labels, double value);
  // The same with one extra label at the end (histogram buckets' "le").
  void Sample(std::string_view name, std::initializer_list<Label> labels, Label extra,
              double value);

  // A value as Prometheus reads it: whole numbers as integers, others in the shortest round-trip
  // form, "+Inf", "-Inf", "NaN".
  static void AppendValue(std::string* out, double value);
  // Escapes \, " and newline in a label value; invalid UTF-8 becomes U+FFFD (and is counted).
  static void AppendEscaped(std::string* out, std::string_view value);

 private:
  void Labels(std::initializer_list<Label> labels, const Label* extra);
  std::string* out_;
};

}  // namespace podwait
