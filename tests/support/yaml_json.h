#pragma once

#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace podwait::testing {

// YAML -> RapidJSON, so the real Kubernetes fixtures (YAML) feed the JSON parsers. Plain scalars
// become numbers, booleans or null where YAML would read them so; quoted scalars stay strings
// (status: "False" is a string, ready: false a boolean).
void YamlToJson(const YAML::Node& node, rapidjson::Value* out,
                rapidjson::Document::AllocatorType& alloc);
// Loads a YAML file of the source tree (path relative to the source root) as a JSON document.
rapidjson::Document LoadYamlAsJson(const std::string& relative);
// The same, serialized.
std::string YamlFileToJsonText(const std::string& relative);
// A value as compact JSON text.
std::string JsonText(const rapidjson::Value& v);
// Loads a JSON file of the source tree (path relative to the source root); a missing file or
// invalid JSON fails the calling test.
rapidjson::Document LoadJsonFile(const std::string& relative);

}  // namespace podwait::testing
