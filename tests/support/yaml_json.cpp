#include "tests/support/yaml_json.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>

#include "tests/support/process.h"

namespace podwait::testing {

void YamlToJson(const YAML::Node& node, rapidjson::Value* out,
                rapidjson::Document::AllocatorType& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out->SetObject();
      for (const auto& kv : node) {
        rapidjson::Value key(kv.first.Scalar().c_str(), alloc);
        rapidjson::Value value;
        YamlToJson(kv.second, &value, alloc);
        out->AddMember(key, value, alloc);
      }
      return;
    case YAML::NodeType::Sequence:
      out->SetArray();
      for (const auto& item : node) {
        rapidjson::Value value;
        YamlToJson(item, &value, alloc);
        out->PushBack(value, alloc);
      }
      return;
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() == "?") {  // a plain scalar
        if (s == "null" || s == "~") {
          out->SetNull();
          return;
        }
        if (s == "true" || s == "false") {
          out->SetBool(s == "true");
          return;
        }
        char* end = nullptr;
        const long long v = std::strtoll(s.c_str(), &end, 10);
        if (!s.empty() && end != nullptr && *end == '\0') {
          out->SetInt64(v);
          return;
        }
      }
      out->SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), alloc);
      return;
    }
    default:
      out->SetNull();
  }
}

rapidjson::Document LoadYamlAsJson(const std::string& relative) {
  rapidjson::Document doc;
  YamlToJson(YAML::LoadFile(SourcePath(relative)), &doc, doc.GetAllocator());
  return doc;
}

rapidjson::Document LoadJsonFile(const std::string& relative) {
  const std::string text = ReadFile(SourcePath(relative));
  EXPECT_FALSE(text.empty()) << relative << ": missing or empty";
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << relative << ": not valid JSON";
  return doc;
}

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string YamlFileToJsonText(const std::string& relative) {
  return JsonText(LoadYamlAsJson(relative));
}

}  // namespace podwait::testing
