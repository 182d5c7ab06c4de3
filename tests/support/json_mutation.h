#pragma once

#include <rapidjson/document.h>

#include <functional>

namespace podwait::testing {

// Every member of `v`, recursively, replaced in turn by each JSON type (null, a number, a string,
// an array, an object); `check` runs on the whole document each time, then the member is put
// back. `runs` counts the checks.
void MutateEach(rapidjson::Value& v, rapidjson::Document& doc, const std::function<void()>& check,
                int* runs);

}  // namespace podwait::testing
