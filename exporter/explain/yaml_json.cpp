#include "exporter/explain/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "exporter/common/json.h"

namespace podwait {
namespace {

using Alloc = rapidjson::Document::AllocatorType;

// A plain scalar as YAML 1.2's core schema reads it.
void PlainScalar(const std::string& s, rapidjson::Value* out, Alloc& alloc) {
  if (s.empty() || s == "null" || s == "Null" || s == "NULL" || s == "~") {
    out->SetNull();
    return;
  }
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    out->SetBool(s[0] == 't' || s[0] == 'T');
    return;
  }
  const bool numeric_start = std::isdigit(static_cast<unsigned char>(s[0])) ||
                             ((s[0] == '-' || s[0] == '+') && s.size() > 1);
  if (numeric_start) {
    errno = 0;
    char* end = nullptr;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && errno == 0) {
      out->SetInt64(i);
      return;
    }
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    const bool hex = s.find_first_of("xX") != std::string::npos;
    if (end != nullptr && *end == '\0' && errno == 0 && !hex) {
      out->SetDouble(d);
      return;
    }
  }
  out->SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

class Converter {
 public:
  Converter(Alloc& alloc, size_t budget) : alloc_(alloc), budget_(budget) {}

  // "" or the error.
  std::string Convert(const YAML::Node& node, rapidjson::Value* out, int depth) {
    if (budget_ == 0) return "more values than a document of this size holds (aliases?)";
    --budget_;
    switch (node.Type()) {
      case YAML::NodeType::Map:
      case YAML::NodeType::Sequence:
        if (depth >= json::kMaxDepth) {
          return "nesting deeper than " + std::to_string(json::kMaxDepth) + " levels at line " +
                 std::to_string(node.Mark().line + 1);
        }
        return node.IsMap() ? Map(node, out, depth) : Sequence(node, out, depth);
      case YAML::NodeType::Scalar:
        if (node.Tag() == "?") {
          PlainScalar(node.Scalar(), out, alloc_);
        } else {
          out->SetString(node.Scalar().c_str(),
                         static_cast<rapidjson::SizeType>(node.Scalar().size()), alloc_);
        }
        return "";
      default:
        out->SetNull();
        return "";
    }
  }

 private:
  std::string Map(const YAML::Node& node, rapidjson::Value* out, int depth) {
    out->SetObject();
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) {
        return "a mapping key that is not a scalar at line " +
               std::to_string(kv.first.Mark().line + 1);
      }
      rapidjson::Value key(kv.first.Scalar().c_str(), alloc_);
      rapidjson::Value value;
      if (std::string e = Convert(kv.second, &value, depth + 1); !e.empty()) return e;
      out->AddMember(key, value, alloc_);
    }
    return "";
  }
  std::string Sequence(const YAML::Node& node, rapidjson::Value* out, int depth) {
    out->SetArray();
    for (const auto& item : node) {
      rapidjson::Value value;
      if (std::string e = Convert(item, &value, depth + 1); !e.empty()) return e;
      out->PushBack(value, alloc_);
    }
    return "";
  }

  Alloc& alloc_;
  size_t budget_;
};

void Emit(const rapidjson::Value& v, YAML::Emitter& out) {
  if (v.IsObject()) {
    out << YAML::BeginMap;
    for (const auto& m : v.GetObject()) {
      out << YAML::Key << std::string(m.name.GetString(), m.name.GetStringLength()) << YAML::Value;
      Emit(m.value, out);
    }
    out << YAML::EndMap;
  } else if (v.IsArray()) {
    out << YAML::BeginSeq;
    for (const auto& item : v.GetArray()) Emit(item, out);
    out << YAML::EndSeq;
  } else if (v.IsString()) {
    const std::string s(v.GetString(), v.GetStringLength());
    // A string that would read back as another type is quoted.
    rapidjson::Document probe;
    PlainScalar(s, &probe, probe.GetAllocator());
    if (!probe.IsString()) out << YAML::DoubleQuoted;
    out << s;
  } else if (v.IsBool()) {
    out << (v.GetBool() ? "true" : "false");
  } else if (v.IsInt64()) {
    out << v.GetInt64();
  } else if (v.IsUint64()) {
    out << v.GetUint64();
  } else if (v.IsNumber()) {
    out << v.GetDouble();
  } else {
    out << YAML::Null;
  }
}

}  // namespace

bool LooksLikeJson(std::string_view text) {
  const size_t at = text.find_first_not_of(" \t\r\n");
  return at != std::string_view::npos && (text[at] == '{' || text[at] == '[');
}

std::string ParseYamlDocuments(std::string_view text, rapidjson::Document* out) {
  out->SetArray();
  // Every value of a document takes at least two bytes of its text unless an alias repeats it.
  Converter converter(out->GetAllocator(), std::max<size_t>(text.size(), 1024) * 4);
  try {
    for (const YAML::Node& doc : YAML::LoadAll(std::string(text))) {
      if (doc.IsNull() || !doc.IsDefined()) continue;
      rapidjson::Value value;
      if (std::string e = converter.Convert(doc, &value, 0); !e.empty()) {
        out->SetArray();
        return e;
      }
      out->PushBack(value, out->GetAllocator());
    }
  } catch (const YAML::Exception& e) {
    out->SetArray();
    return e.mark.is_null()
               ? "invalid YAML: " + e.msg
               : "invalid YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg;
  } catch (const std::exception& e) {
    out->SetArray();
    return std::string("invalid YAML: ") + e.what();
  }
  return "";
}

std::string JsonToYaml(const rapidjson::Value& value) {
  YAML::Emitter out;
  Emit(value, out);
  return std::string(out.c_str()) + "\n";
}

}  // namespace podwait
