#include "qinfer/core/outcome_json.h"

#include <gtest/gtest.h>

namespace qinfer {
namespace {

TEST(OutcomeJsonTest, ResultRoundTrips) {
  Outcome o;
  o.id = "doc-1";
  o.ok = true;
  o.output = {0.5f, -1.25f, 3.0f};
  o.device = "cpu";
  o.bucket = 64;
  o.batch_size = 8;
  o.padded_length = 50;
  o.input_length = 42;
  o.model_name = "m";
  o.model_digest = "sha256:ab";
  o.queue_seconds = 0.25;
  o.run_seconds = 0.5;
  o.completed_at_ms = 1234;
  o.reply_to = "replies";
  o.meta_json = R"({"k":[1,"x"]})";
  auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, o);
}

TEST(OutcomeJsonTest, FailureRoundTripsWithPayloadAndSource) {
  Outcome o;
  o.id = "bad-1";
  o.reason = reason::kInvalid;
  o.error = "`input_ids` is missing";
  o.payload = R"({"id":"bad-1"})";
  o.input_length = 0;
  o.completed_at_ms = 99;
  o.origin = {"jobs", 2, 17, 0};
  auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, o);
}

TEST(OutcomeJsonTest, InvalidUtf8PayloadDoesNotThrow) {
  Outcome o;
  o.id = "x";
  o.reason = reason::kInvalid;
  o.payload = "\xff\xfe not utf-8";
  const std::string json = OutcomeToJson(o);
  EXPECT_TRUE(OutcomeFromJson(json).ok());
}

TEST(OutcomeJsonTest, MetaThatIsNotJsonIsKeptAsAString) {
  Outcome o;
  o.id = "x";
  o.ok = true;
  o.meta_json = "{not json";
  auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->meta_json, "\"{not json\"");
}

TEST(OutcomeJsonTest, RejectsGarbage) {
  EXPECT_FALSE(OutcomeFromJson("nope").ok());
  EXPECT_FALSE(OutcomeFromJson(R"({"status":"ok"})").ok()) << "no id";
}

}  // namespace
}  // namespace qinfer
