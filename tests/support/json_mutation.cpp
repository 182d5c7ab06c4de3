#include "tests/support/json_mutation.h"

namespace podwait::testing {

void MutateEach(rapidjson::Value& v, rapidjson::Document& doc, const std::function<void()>& check,
                int* runs) {
  auto& a = doc.GetAllocator();
  auto mutate = [&](rapidjson::Value& slot) {
    rapidjson::Value saved;
    saved.CopyFrom(slot, a);
    rapidjson::Value replacements[5];
    replacements[0].SetNull();
    replacements[1].SetInt(-1);
    replacements[2].SetString("x");
    replacements[3].SetArray();
    replacements[3].PushBack(1, a);
    replacements[4].SetObject();
    for (auto& r : replacements) {
      slot.CopyFrom(r, a);
      check();
      ++*runs;
    }
    slot.CopyFrom(saved, a);
    MutateEach(slot, doc, check, runs);
  };
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) mutate(m.value);
  } else if (v.IsArray()) {
    for (auto& item : v.GetArray()) mutate(item);
  }
}

}  // namespace podwait::testing
