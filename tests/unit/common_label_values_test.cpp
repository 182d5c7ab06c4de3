// Label values from outside mapped to a fixed set.

#include <gtest/gtest.h>

#include "exporter/common/label_values.h"

namespace podwait {
namespace {

TEST(StoreStateLabel, KnownStatesStayAndTheRestIsOther) {
  for (const char* s : {"Up", "Disconnected", "Down", "Offline", "Tombstone", "Preparing",
                        "Serving", "Removing", "Removed", "Unknown"}) {
    EXPECT_EQ(StoreStateLabel(s), s);
  }
  EXPECT_EQ(StoreStateLabel("up"), "other");
  EXPECT_EQ(StoreStateLabel(""), "other");
  EXPECT_EQ(StoreStateLabel("Up\xff"), "other");
  EXPECT_EQ(StoreStateLabel(std::string(10000, 'x')), "other");
}

}  // namespace
}  // namespace podwait
