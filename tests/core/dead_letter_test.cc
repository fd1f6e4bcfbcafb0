// The dead-letter convention: the original value, the failure in
// `__qinfer.errors.*` headers, and the way back for `qinfer replay`.
#include "qinfer/core/dead_letter.h"

#include <gtest/gtest.h>

#include <map>

namespace qinfer {
namespace {

Outcome Failure() {
  Outcome f;
  f.id = "doc-7";
  f.ok = false;
  f.reason = reason::kTooLong;
  f.error = "input length 900 exceeds max_tokens 512, replay with truncate_to";
  f.input_length = 900;
  f.payload = std::string("{\"id\":\"doc-7\",\"input_ids\":[1,2]}\xff", 34);
  f.attempt = 2;
  f.origin = {"jobs", 3, 1234, 9};
  f.replay_of = {"jobs", 1, 77, 0};
  f.completed_at_ms = 1'796'000'000'123;
  return f;
}

std::map<std::string, std::string> Headers(const DeadLetter& m) { return {m.headers.begin(), m.headers.end()}; }

TEST(DeadLetterTest, TheValueIsTheOriginalMessageAndHeadersSayWhereAndWhy) {
  const DeadLetter m = ToDeadLetter(Failure());
  EXPECT_EQ(m.key, "doc-7");
  EXPECT_EQ(m.value, Failure().payload) << "byte for byte, invalid UTF-8 included";
  auto h = Headers(m);
  EXPECT_EQ(h.at("__qinfer.errors.topic"), "jobs");
  EXPECT_EQ(h.at("__qinfer.errors.partition"), "3");
  EXPECT_EQ(h.at("__qinfer.errors.offset"), "1234");
  EXPECT_EQ(h.at("__qinfer.errors.reason"), "too_long");
  EXPECT_EQ(h.at("__qinfer.errors.message"), Failure().error);
  EXPECT_EQ(h.at("__qinfer.errors.attempt"), "2");
  EXPECT_EQ(h.at("__qinfer.errors.timestamp"), "1796000000123");
  EXPECT_EQ(h.at("__qinfer.errors.input_length"), "900");
  EXPECT_EQ(h.at("__qinfer.errors.replay_of.offset"), "77");
  EXPECT_EQ(h.count("__qinfer.errors.payload_truncated"), 0u) << "only when it is";
}

TEST(DeadLetterTest, ReadsBackToTheFailureItCameFrom) {
  auto back = FromDeadLetter(ToDeadLetter(Failure()));
  ASSERT_TRUE(back.ok()) << back.status();
  Outcome expected = Failure();
  expected.origin.epoch = 0;  // the assignment generation is not part of it
  EXPECT_EQ(*back, expected);
}

TEST(DeadLetterTest, ATruncatedPayloadSaysSo) {
  Outcome f = Failure();
  f.payload = f.payload.substr(0, 10);
  f.payload_truncated = true;
  f.delivery_error = "Broker: Message size too large";
  auto h = Headers(ToDeadLetter(f));
  EXPECT_EQ(h.at("__qinfer.errors.payload_truncated"), "true");
  EXPECT_EQ(h.at("__qinfer.errors.delivery_error"), "Broker: Message size too large");
  auto back = FromDeadLetter(ToDeadLetter(f));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->payload_truncated);
}

TEST(DeadLetterTest, MissingOrBadHeadersAreNamed) {
  DeadLetter m = ToDeadLetter(Failure());
  DeadLetter no_reason = m;
  std::erase_if(no_reason.headers, [](const auto& h) { return h.first == "__qinfer.errors.reason"; });
  auto a = FromDeadLetter(no_reason);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("__qinfer.errors.reason"), std::string::npos) << a.status();

  DeadLetter bad_offset = m;
  for (auto& [name, value] : bad_offset.headers) {
    if (name == "__qinfer.errors.offset") value = "12x";
  }
  auto b = FromDeadLetter(bad_offset);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("'12x' is not a number"), std::string::npos) << b.status();

  auto c = FromDeadLetter(DeadLetter{"k", "v", {}});
  EXPECT_FALSE(c.ok()) << "a message that is not a qinfer dead letter";
}

}  // namespace
}  // namespace qinfer
