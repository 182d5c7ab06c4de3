#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "tests/sim/store.h"

namespace podwait::sim {

// Server-side printing, as the API server answers a client that sends
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` (kubectl get): a meta.k8s.io/v1 Table
// whose columns are kubectl's usual ones for pods, events and configmaps (the API server's
// printers) and, for the custom resources, "Name" plus the CRD's additionalPrinterColumns
// (tidb-operator's CRDs and kubebuilder markers).

// What a Table row carries of its object (query parameter includeObject).
enum class IncludeObject { kNone, kMetadata, kObject };

struct TableOptions {
  IncludeObject include = IncludeObject::kMetadata;
  bool column_definitions = true;  // false in watch events after the first (kubectl reuses them)
};

// True when the Accept header asks for a meta.k8s.io/v1 Table (as=Table;g=meta.k8s.io;v=v1 in any
// order, in any of its comma-separated media types).
bool WantsTable(std::string_view accept);
// "None", "Metadata" (the default), "Object"; false for anything else.
bool ParseIncludeObject(std::string_view text, IncludeObject* out);

// A Table of `items` with list metadata `list_metadata` (a JSON object, e.g.
// {"resourceVersion":"12"}).
std::string TableJson(Resource r, const std::vector<ObjectPtr>& items,
                      std::string_view list_metadata, const TableOptions& options, Timestamp now);

// The additionalPrinterColumns of a custom resource in CRD form (for discovery and the README),
// or an empty list for built-in resources.
struct PrinterColumn {
  const char* name;
  const char* type;  // string, integer, date
  const char* json_path;
  int priority;
  const char* description;
};
std::vector<PrinterColumn> PrinterColumnsOf(Resource r);

// kubectl's age format ("45s", "3m20s", "25m", "5h3m", "2d3h", "400d"), for a duration in ms.
std::string HumanAge(Timestamp ms);

// A small JSONPath subset, as the printer columns use it: ".a.b.c", ".a[0].b",
// ".a[?(@.type==\"Ready\")].status". Returns the first value found, or null.
const rapidjson::Value* JsonPathFirst(const rapidjson::Value& root, std::string_view path);

}  // namespace podwait::sim
