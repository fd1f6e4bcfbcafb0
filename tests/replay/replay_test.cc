#include "qinfer/replay/replay.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "fakes/fake_clock.h"

namespace qinfer::replay {
namespace {

using nlohmann::json;

Outcome Failure(const std::string& id, const char* why, int attempt = 0) {
  Outcome f;
  f.id = id;
  f.ok = false;
  f.reason = why;
  f.payload = R"({"input_ids":[1,2,3,4,5],"meta":{"k":"v"},"reply_to":"out"})";
  f.origin = {"jobs", 2, 40, 3};
  f.attempt = attempt;
  f.completed_at_ms = 1000;
  return f;
}

Selection Reasons(std::set<std::string> reasons) {
  Selection s;
  s.reasons = std::move(reasons);
  return s;
}
Selection Ids(std::set<std::string> ids) {
  Selection s;
  s.ids = std::move(ids);
  return s;
}
Selection Between(int64_t since, int64_t until) {
  Selection s;
  s.since_ms = since;
  s.until_ms = until;
  return s;
}
Overrides With(std::string policy, int truncate_to = 0, std::string device = "", int max_tokens = 0) {
  Overrides o;
  o.policy = std::move(policy);
  o.truncate_to = truncate_to;
  o.device = std::move(device);
  o.max_tokens = max_tokens;
  return o;
}
Limits UpTo(int max_attempts, bool force = false) {
  Limits l;
  l.max_attempts = max_attempts;
  l.force = force;
  return l;
}

TEST(ReplaySelectionTest, SelectsByReasonIdAndTime) {
  const Outcome f = Failure("a", reason::kTooLong);
  EXPECT_TRUE(Selected(f, {}));
  EXPECT_TRUE(Selected(f, Reasons({"too_long", "oom"})));
  EXPECT_FALSE(Selected(f, Reasons({"oom"})));
  EXPECT_TRUE(Selected(f, Ids({"a", "b"})));
  EXPECT_FALSE(Selected(f, Ids({"b"})));
  EXPECT_TRUE(Selected(f, Between(1000, 1000)));
  EXPECT_FALSE(Selected(f, Between(1001, INT64_MAX)));
  EXPECT_FALSE(Selected(f, Between(0, 999)));
  Outcome result = f;
  result.ok = true;
  EXPECT_FALSE(Selected(result, {})) << "results are never replayed";
}

TEST(ReplaySelectionTest, AReasonNoRecordCanHaveIsRefusedWithTheList) {
  EXPECT_TRUE(CheckSelection({}).ok());
  EXPECT_TRUE(CheckSelection(Reasons({"too_long", "oom", "undeliverable"})).ok());
  absl::Status typo = CheckSelection(Reasons({"oom", "too-long"}));
  EXPECT_TRUE(absl::IsInvalidArgument(typo)) << typo;
  EXPECT_EQ(typo.message(), "--reason too-long: expected invalid, too_long, too_large, oom, model_error, crash or undeliverable");
}

TEST(ReplayMessageTest, TheOriginalMessageWithTheNextAttemptItsOriginAndTheOverrides) {
  auto text = ReplayMessage(Failure("key-id", reason::kTooLong), With("truncate", 0, "cpu"), {});
  ASSERT_TRUE(text.ok()) << text.status();
  const json j = json::parse(*text);
  EXPECT_EQ(j["id"], "key-id") << "the id, even when it came from the message key";
  EXPECT_EQ(j["attempt"], 1);
  EXPECT_EQ(j["replay_of"], (json{{"topic", "jobs"}, {"partition", 2}, {"offset", 40}}));
  EXPECT_EQ(j["policy"], "truncate");
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["input_ids"], (json{1, 2, 3, 4, 5}));
  EXPECT_EQ(j["meta"], (json{{"k", "v"}})) << "everything else as it was";
  EXPECT_EQ(j["reply_to"], "out");
  EXPECT_FALSE(j.contains("truncate_to"));
}

TEST(ReplayMessageTest, AnEmbedJobsPromptNameAndDimensionsAreCarried) {
  Outcome f = Failure("q", reason::kTooLong);
  f.payload = R"({"text":"a long query","prompt_name":"query","dimensions":64})";
  auto text = ReplayMessage(f, With("truncate", 0, ""), {});
  ASSERT_TRUE(text.ok()) << text.status();
  const json j = json::parse(*text);
  EXPECT_EQ(j["prompt_name"], "query") << "the replay is tokenized behind the same prompt";
  EXPECT_EQ(j["dimensions"], 64);
  EXPECT_EQ(j["policy"], "truncate");
}

TEST(ReplayMessageTest, AnImageTooLargeReplaysWithPolicyResizeAndNoTextOverride) {
  Outcome f = Failure("photo", reason::kTooLarge);
  f.payload = R"({"image_url":"file:///srv/big.png","candidate_labels":["cat"]})";
  auto resized = ReplayMessage(f, With("resize"), {});
  ASSERT_TRUE(resized.ok()) << resized.status();
  const json j = json::parse(*resized);
  EXPECT_EQ(j["policy"], "resize");
  EXPECT_EQ(j["image_url"], "file:///srv/big.png");
  EXPECT_EQ(j["candidate_labels"], json::array({"cat"}));
  EXPECT_FALSE(ReplayMessage(f, With("truncate"), {}).ok()) << "an image takes no over-long policy";
  EXPECT_FALSE(ReplayMessage(f, With("", 8), {}).ok()) << "nor --truncate-to";
  EXPECT_TRUE(ReplayMessage(f, With("", 0, "cpu"), {}).ok()) << "--device cpu it takes";
  EXPECT_FALSE(ReplayMessage(Failure("t", reason::kTooLong), With("resize"), {}).ok())
      << "resize is for images only";
}

TEST(ReplayMessageTest, AReplayOfAReplayPointsAtTheFirstMessage) {
  Outcome again = Failure("a", reason::kOom, 1);
  again.replay_of = {"jobs", 0, 7, 0};
  auto text = ReplayMessage(again, With("", 3), {});
  ASSERT_TRUE(text.ok()) << text.status();
  const json j = json::parse(*text);
  EXPECT_EQ(j["attempt"], 2);
  EXPECT_EQ(j["replay_of"]["offset"], 7);
  EXPECT_EQ(j["truncate_to"], 3);
}

TEST(ReplayMessageTest, TheAttemptLimitHoldsUnlessForced) {
  auto refused = ReplayMessage(Failure("a", reason::kOom, 3), {}, UpTo(3));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("attempt 4 would pass --max-attempts 3"), std::string::npos);
  auto forced = ReplayMessage(Failure("a", reason::kOom, 3), {}, UpTo(3, true));
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(json::parse(*forced)["attempt"], 4);
}

TEST(ReplayMessageTest, WhatCannotBeReplayedSaysWhy) {
  Outcome invalid = Failure("bad", reason::kInvalid);
  invalid.error = "`input_ids[1]` = 4096 is outside [0, 4096)";
  auto refused = ReplayMessage(invalid, {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("is invalid (`input_ids[1]` = 4096 is outside [0, 4096)): a replay "
                                            "would fail the same way"),
            std::string::npos)
      << refused.status();
  EXPECT_TRUE(ReplayMessage(invalid, {}, UpTo(3, true)).ok()) << "--force, after raising a limit";
  invalid.payload = "not json";
  auto a = ReplayMessage(invalid, {}, UpTo(3, true));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("not a job with input_ids, text, image or image_url; fix it and submit it again"),
            std::string::npos);
  invalid.payload = R"({"text":"both","input_ids":[1]})";
  a = ReplayMessage(invalid, {}, UpTo(3, true));
  ASSERT_FALSE(a.ok()) << "exactly one of input_ids and text";
  // A text job replays as its text; --max-tokens reads the length its record says.
  Outcome text = Failure("t", reason::kTooLong);
  text.payload = R"({"id":"t","text":"a long text"})";
  text.input_length = 300;
  Overrides truncate;
  truncate.policy = "truncate";
  auto replayed = ReplayMessage(text, truncate, UpTo(3, false));
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_NE(replayed->find(R"("text":"a long text")"), std::string::npos) << *replayed;
  EXPECT_NE(replayed->find(R"("policy":"truncate")"), std::string::npos) << *replayed;
  Overrides lane;
  lane.max_tokens = 256;
  EXPECT_FALSE(ReplayMessage(text, lane, UpTo(3, false)).ok()) << "300 tokens > --max-tokens 256";

  Outcome cut = Failure("big", reason::kOom);
  cut.payload_truncated = true;
  auto b = ReplayMessage(cut, {}, {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("only a prefix"), std::string::npos);

  auto c = ReplayMessage(Failure("long", reason::kTooLong), With("", 0, "", 4), {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("5 tokens, more than --max-tokens 4"), std::string::npos);
  auto d = ReplayMessage(Failure("long", reason::kTooLong), With("", 0, "", 8), {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(json::parse(*d)["policy"], "long_lane");
}

TEST(ReplayMessageTest, AnUndeliverableNoticeIsRefusedAsAResultWhoseReplyWasLost) {
  // As the service writes it: no payload, marked as a prefix.
  Outcome notice = Failure("done", reason::kUndeliverable);
  notice.payload.clear();
  notice.payload_truncated = true;
  notice.delivery_error = "Broker: Unknown topic or partition";
  auto refused = ReplayMessage(notice, {}, UpTo(3, true));
  ASSERT_FALSE(refused.ok()) << "not even with --force: there is nothing to run";
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status()));
  const std::string why(refused.status().message());
  EXPECT_NE(why.find("job done has a result: this is an undeliverable notice, its reply (Broker: Unknown topic or "
                     "partition) was not delivered"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("qinfer results --id done"), std::string::npos) << why;
  EXPECT_EQ(why.find("only a prefix"), std::string::npos) << why;
}

TEST(ReplayMessageTest, ThePolicyIsRefusedByNameWithEveryValidOne) {
  EXPECT_TRUE(CheckOverrides(With("reject")).ok());
  absl::Status s = CheckOverrides(With("trunc"));
  EXPECT_EQ(s.message(), "--policy trunc: expected truncate, chunk, long_lane or reject (over-long inputs), or resize (images over "
            "limits.max_image_pixels)");
}

TEST(ReplayMessageTest, OverridesAreChecked) {
  EXPECT_TRUE(CheckOverrides(With("chunk")).ok());
  EXPECT_FALSE(CheckOverrides(With("split")).ok());
  EXPECT_FALSE(CheckOverrides(With("", 0, "cuda:0")).ok());
  EXPECT_FALSE(CheckOverrides(With("truncate", 0, "", 1024)).ok());
}

TEST(ReplayProgressTest, ReportsCountRateAndEtaAtMostOncePerInterval) {
  testing::FakeClock clock;
  Progress progress(clock, 1000, std::chrono::seconds(1));
  EXPECT_FALSE(progress.Update(10)) << "not yet: less than an interval";
  clock.Advance(std::chrono::seconds(2));
  auto line = progress.Update(400);
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, "400/1000 (40%), 200/s, ETA 3 s");
  EXPECT_FALSE(progress.Update(401));
  clock.Advance(std::chrono::seconds(3));
  EXPECT_EQ(progress.Final(1000), "1000 in 5.0 s (200/s)");
}

}  // namespace
}  // namespace qinfer::replay
