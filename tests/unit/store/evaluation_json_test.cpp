// One stored evaluation's JSON form, shared by `arbiter show --json` and the evaluation page.
#include "arbiter/store/evaluation_json.hpp"

#include <gtest/gtest.h>

using namespace arbiter;
using namespace arbiter::store;

namespace {

evaluation_view judged() {
  evaluation_view v;
  v.id = 7;
  v.campaign = "nightly";
  v.problem = "softmax";
  v.model = "m";
  v.status = "done";
  v.result.result = {verdict::rejected, "reward hack or rule violation (T4)"};
  v.result.details_json = R"({"outside_scored": [{"shape": "4k"}]})";
  v.result.facts_json = R"({"version": 1, "facts": []})";
  v.result.findings = {{"T4", "reject", "the record claims 0.1 ms", "dynamic"}};
  v.result.guard_version = "abc";
  return v;
}

} // namespace

TEST(evaluation_json, carries_the_verdict_findings_facts_details_and_the_guard) {
  const auto j = evaluation_json(judged(), "abc");
  EXPECT_EQ(j["id"], 7);
  EXPECT_EQ(j["campaign"], "nightly");
  EXPECT_EQ(j["verdict"], "rejected");
  EXPECT_TRUE(j["speedup"].is_null());
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["source"], "dynamic");
  EXPECT_EQ(j["facts"]["version"], 1);
  EXPECT_EQ(j["details"]["outside_scored"][0]["shape"], "4k");
  EXPECT_TRUE(j["guard_current"].get<bool>());
  EXPECT_FALSE(evaluation_json(judged(), "def")["guard_current"].get<bool>());
}

TEST(evaluation_json, an_unfinished_or_unreadable_evaluation_still_has_every_key) {
  auto v = judged();
  v.status = "running";
  v.result.details_json = "{not json";
  v.result.facts_json = "";
  const auto j = evaluation_json(v, "abc");
  EXPECT_TRUE(j["verdict"].is_null()); // not done: no verdict yet
  EXPECT_TRUE(j["details"].is_object() && j["details"].empty());
  EXPECT_TRUE(j["facts"].is_null());
}
