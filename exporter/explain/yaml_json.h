#pragma once

// kubectl's YAML (`kubectl get ... -o yaml`, one List, or several documents separated by "---")
// read into the JSON values every parser of podwait takes.

#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace podwait {

// Parses the YAML stream `text` into *out, an array with one value per document (empty documents
// are left out). Plain scalars become numbers, booleans or null where YAML 1.2's core schema
// reads them so; quoted scalars stay strings (status: "False" is a string). Returns "" or the
// error: YAML syntax (with its line), a mapping key that is not a scalar, nesting deeper than
// json::kMaxDepth, or more values than a document of this size can hold (aliases that expand a
// few bytes into millions of nodes). Never throws.
std::string ParseYamlDocuments(std::string_view text, rapidjson::Document* out);

// Whether `text` reads as JSON (its first character that is not white space opens an object or
// an array); YAML otherwise.
bool LooksLikeJson(std::string_view text);

// A JSON value as YAML, as kubectl -o yaml writes it (block style, keys in the JSON's order).
std::string JsonToYaml(const rapidjson::Value& value);

}  // namespace podwait
