#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "exporter/metrics/contract.h"

namespace podwait {

// Writes the Prometheus text exposition format (0.0.4) straight into a string, for families with
// many series (one per waiting pod): no per-series label vectors, no intermediate stream. Pure.
//
// A sample names its family's contract row and gives the label values in the row's order; the
// label names come from the row, so a family cannot be written with labels other than its own
// (a wrong number of values does not compile).
class TextWriter {
 public:
  using Label = std::pair<std::string_view, std::string_view>;

  explicit TextWriter(std::string* out) : out_(out) {}

  // "# HELP name help\n# TYPE name type\n"
  void Family(const MetricInfo& metric) { Family(metric.name, metric.help, metric.type); }

  // name{k="v",...} value\n for a gauge or counter of the contract; label values escaped.
  template <const MetricInfo& M, size_t N>
  void Sample(const std::string_view (&values)[N], double value) {
    static_assert(M.type != "histogram", "a histogram is written with Bucket, Sum and Count");
    static_assert(N == LabelCount(M.labels), "one value per label of the family, in its order");
    Write(M.name, {}, kLabelNames<M>.data(), values, N, nullptr, value);
  }
  // A sample of a family without labels.
  template <const MetricInfo& M>
  void Sample(double value) {
    static_assert(M.type != "histogram" && LabelCount(M.labels) == 0);
    Write(M.name, {}, nullptr, nullptr, 0, nullptr, value);
  }
  // A histogram's series: name_bucket{...,le="<le>"}, name_sum{...}, name_count{...}.
  template <const MetricInfo& M, size_t N>
  void Bucket(const std::string_view (&values)[N], std::string_view le, double count) {
    static_assert(M.type == "histogram" && N == LabelCount(M.labels));
    const Label extra{"le", le};
    Write(M.name, "_bucket", kLabelNames<M>.data(), values, N, &extra, count);
  }
  template <const MetricInfo& M, size_t N>
  void Sum(const std::string_view (&values)[N], double sum) {
    static_assert(M.type == "histogram" && N == LabelCount(M.labels));
    Write(M.name, "_sum", kLabelNames<M>.data(), values, N, nullptr, sum);
  }
  template <const MetricInfo& M, size_t N>
  void Count(const std::string_view (&values)[N], double count) {
    static_assert(M.type == "histogram" && N == LabelCount(M.labels));
    Write(M.name, "_count", kLabelNames<M>.data(), values, N, nullptr, count);
  }

  // A value as Prometheus reads it: whole numbers as integers, others in the shortest round-trip
  // form, "+Inf", "-Inf", "NaN".
  static void AppendValue(std::string* out, double value);
  // Escapes \, " and newline in a label value; invalid UTF-8 becomes U+FFFD (and is counted).
  static void AppendEscaped(std::string* out, std::string_view value);

 private:
  void Family(std::string_view name, std::string_view help, std::string_view type);
  // name+suffix{names[i]="values[i]",...[,extra]} value\n
  void Write(std::string_view name, std::string_view suffix, const std::string_view* names,
             const std::string_view* values, size_t n, const Label* extra, double value);
  void Labels(const std::string_view* names, const std::string_view* values, size_t n,
              const Label* extra);
  std::string* out_;
};

}  // namespace podwait
