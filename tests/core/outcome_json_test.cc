#include "qinfer/core/outcome_json.h"
#include "qinfer/core/json_scan.h"
#include "qinfer/core/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <random>

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

TEST(OutcomeJsonTest, ASparseResultIsWrittenAsIndicesAndValuesAndReadBack) {
  Outcome o;
  o.id = "s-1";
  o.ok = true;
  o.output = {1.5f, 0.25f};
  o.sparse_indices = std::vector<int32_t>{7, 30000};
  o.model_name = "m";
  const std::string json = OutcomeToJson(o);
  EXPECT_NE(json.find(R"("output":{"indices":[7,30000],"values":[1.5,0.25]})"), std::string::npos) << json;
  auto back = OutcomeFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, o);
}

TEST(OutcomeJsonTest, ATokenEmbedResultIsWrittenAsAVectorAToken) {
  Outcome o;
  o.id = "t-1";
  o.ok = true;
  o.output = {0.5f, -1.0f, 2.0f, 0.25f, 0.0f, 3.0f};
  o.output_rows = 3;
  o.input_length = 3;
  const std::string json = OutcomeToJson(o);
  EXPECT_NE(json.find(R"("output":[[0.5,-1.0],[2.0,0.25],[0.0,3.0]])"), std::string::npos) << json;
  auto back = OutcomeFromJson(json);
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

TEST(OutcomeJsonTest, APayloadThatIsNotUtf8RoundTripsByteForByte) {
  Outcome o;
  o.id = "x";
  o.reason = reason::kInvalid;
  o.payload = std::string("\xff\xfe not utf-8 \0 \xc3", 19);
  const std::string json = OutcomeToJson(o);
  EXPECT_NE(json.find("\"payload_base64\""), std::string::npos) << json;
  auto back = OutcomeFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->payload, o.payload) << "the original bytes, for replay";
}

TEST(OutcomeJsonTest, AUtf8PayloadStaysReadableText) {
  Outcome o;
  o.id = "x";
  o.reason = reason::kInvalid;
  o.payload = "{\"input_ids\": \"héllo ✓\"}";
  const std::string json = OutcomeToJson(o);
  EXPECT_EQ(json.find("payload_base64"), std::string::npos);
  EXPECT_EQ(OutcomeFromJson(json)->payload, o.payload);
}

TEST(OutcomeJsonTest, DeliveryErrorAndTruncatedPayloadRoundTrip) {
  Outcome o;
  o.id = "x";
  o.reason = reason::kInvalid;
  o.payload = "{\"id\":";
  o.payload_truncated = true;
  o.delivery_error = "Broker: Message size too large";
  auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->payload_truncated);
  EXPECT_EQ(back->delivery_error, o.delivery_error);
}

TEST(Utf8Test, ValidatesAndCutsOnCharacterBoundaries) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("h\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));              // cut short
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_EQ(Utf8Prefix("h\xc3\xa9llo", 2), "h");
  EXPECT_EQ(Utf8Prefix("h\xc3\xa9llo", 3), "h\xc3\xa9");
  EXPECT_EQ(Utf8Prefix("abc", 10), "abc");
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

TEST(OutcomeJsonTest, HistoryIsAnArrayOfTheSupersededRecordsInOrder) {
  Outcome result;
  result.id = "doc-1";
  result.ok = true;
  result.output = {0.5f};
  result.attempt = 2;
  Outcome too_long;
  too_long.id = "doc-1";
  too_long.reason = reason::kTooLong;
  too_long.payload = R"({"id":"doc-1"})";
  too_long.origin = {"jobs", 0, 5, 0};
  Outcome oom = too_long;
  oom.reason = reason::kOom;
  oom.attempt = 1;
  const std::vector<Outcome> history = {too_long, oom};

  const std::string line = OutcomeWithHistoryToJson(result, history);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  nlohmann::json j = nlohmann::json::parse(line);
  ASSERT_TRUE(j["history"].is_array()) << line;
  ASSERT_EQ(j["history"].size(), 2u) << line;
  EXPECT_EQ(OutcomeFromJson(j["history"][0].dump()).value(), too_long);
  EXPECT_EQ(OutcomeFromJson(j["history"][1].dump()).value(), oom);
  j.erase("history");
  EXPECT_EQ(j.dump(), OutcomeToJson(result)) << "the record itself as before";
}

TEST(OutcomeJsonTest, NoHistoryLeavesTheRecordAsOutcomeToJsonWritesIt) {
  Outcome o;
  o.id = "x";
  o.reason = reason::kOom;
  EXPECT_EQ(OutcomeWithHistoryToJson(o, {}), OutcomeToJson(o));
}

// A result with every optional member set, for the encoder tests.
Outcome FullResult() {
  Outcome o;
  o.id = "doc-\"1\"\\ \x01\t\n héllo";
  o.ok = true;
  o.output = {0.5f, -1.25f, 3.0f, 0.0f, -0.0f, 1e-7f, 1e20f};
  o.device = "cpu";
  o.bucket = 64;
  o.batch_size = 8;
  o.padded_length = 50;
  o.input_length = 42;
  o.model_name = "m";
  o.model_digest = "sha256:ab";
  o.queue_seconds = 0.25;
  o.run_seconds = 1e-05;
  o.completed_at_ms = 1796069087123;
  o.reply_to = "replies";
  o.meta_json = R"({"a":{"b":[1,2.5,"x"]},"z":null})";
  o.attempt = 2;
  o.replay_of = {"jobs", 3, 77, 0};
  o.policy = "truncate";
  o.original_length = 900;
  o.windows = 3;
  o.delivery_error = "Broker: \"too large\"";
  return o;
}

TEST(OutcomeJsonTest, WritesWhatADocumentDumpWritesMembersInKeyOrder) {
  // nlohmann::json keeps an object's members sorted and has one way to
  // write each value: the encoder's bytes are that canonical form (the
  // floats here have the same shortest form as float and as double).
  Outcome failure;
  failure.id = "bad-1";
  failure.reason = reason::kInvalid;
  failure.error = "`input_ids` is \"missing\"\n";
  failure.payload = "{\"id\":\"bad-1\"}";
  failure.payload_truncated = true;
  failure.input_length = 3;
  failure.completed_at_ms = 99;
  failure.origin = {"jobs", 2, 17, 0};
  failure.attempt = 1;
  failure.replay_of = {"jobs", 1, 5, 0};
  failure.policy = "chunk";
  failure.windows = 2;
  failure.original_length = 700;
  failure.reply_to = "r";
  failure.meta_json = R"({"k":1})";
  failure.delivery_error = "gone";
  Outcome bare;
  bare.id = "x";
  bare.ok = true;
  // The task fields: classify's label and scores, rerank's score.
  Outcome classified = FullResult();
  classified.output = {0.5f, -1.0f};
  classified.label = "POS";
  classified.scores = {{"POS", 0.8175745f}, {"NEG \"x\"", 0.1824255f}};
  Outcome reranked = bare;
  reranked.output = {2.0f};
  reranked.score = 0.880797f;
  Outcome tagged = bare;
  tagged.entities = std::vector<Entity>{{"LOC", "New \"York\"", 3, 13, 0.75f}};
  tagged.tokens = std::vector<TokenLabel>{{"##er", 21, 23, "I-LOC", 0.5f}};
  Outcome untagged = bare;
  untagged.entities.emplace();  // no entity: "entities": [] is written
  for (const Outcome& o : {FullResult(), failure, bare, classified, reranked, tagged, untagged}) {
    const std::string line = OutcomeToJson(o);
    EXPECT_EQ(nlohmann::json::parse(line).dump(), line);
    auto back = OutcomeFromJson(line);
    ASSERT_TRUE(back.ok()) << back.status();
    Outcome want = o;
    if (o.ok) want.origin = {};  // results keep no source
    want.origin.epoch = 0;
    EXPECT_EQ(*back, want) << line;
  }
}

TEST(OutcomeJsonTest, OutputFloatsAreShortestAndReadBackExactly) {
  Outcome o;
  o.id = "x";
  o.ok = true;
  o.output = {0.1f, 1.0f, -2.0f, 1e-7f, 123456.79f};
  const std::string line = OutcomeToJson(o);
  EXPECT_NE(line.find(R"("output":[0.1,1.0,-2.0,1e-07,123456.79])"), std::string::npos) << line;

  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  o.output.clear();
  while (o.output.size() < 2000) {
    uint32_t b = bits(rng);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    if (std::isfinite(f)) o.output.push_back(f);
  }
  auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->output.size(), o.output.size());
  for (size_t i = 0; i < o.output.size(); ++i) {
    EXPECT_EQ(std::memcmp(&back->output[i], &o.output[i], sizeof(float)), 0)
        << "value " << i << " " << o.output[i] << " came back as " << back->output[i];
  }
}

TEST(OutcomeJsonTest, NonFiniteOutputsBecomeNullAsBefore) {
  Outcome o;
  o.id = "x";
  o.ok = true;
  o.output = {NAN, INFINITY, 1.5f};
  EXPECT_NE(OutcomeToJson(o).find(R"("output":[null,null,1.5])"), std::string::npos) << OutcomeToJson(o);
}

TEST(OutcomeJsonTest, TextThatIsNotUtf8IsReplacedNotThrownOn) {
  Outcome o;
  o.id = "bad-\xff-id";
  o.ok = true;
  const std::string line = OutcomeToJson(o);
  auto back = OutcomeFromJson(line);
  ASSERT_TRUE(back.ok()) << back.status() << " " << line;
  EXPECT_EQ(back->id, "bad-\xef\xbf\xbd-id") << "U+FFFD in place of the byte";
}

TEST(OutcomeJsonTest, RejectsGarbage) {
  EXPECT_FALSE(OutcomeFromJson("nope").ok());
  EXPECT_FALSE(OutcomeFromJson(R"({"status":"ok"})").ok()) << "no id";
}

}  // namespace
}  // namespace qinfer

namespace qinfer {
namespace {

// `meta` reads back as the bytes it was stored as (the producer's spacing
// and key order), not as a parse would re-print it.
TEST(OutcomeJsonMetaTest, MetaReadsBackAsItsStoredBytes) {
  Outcome o;
  o.id = "m";
  o.ok = true;
  o.output = {1.0f};
  o.meta_json = R"({ "z" : 1,  "a" : [ "\"", {"q": null} ] })";
  const auto back = OutcomeFromJson(OutcomeToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->meta_json, o.meta_json);
  EXPECT_EQ(RawJsonMember(R"({"a": 1, "meta" : [1, 2] , "b": {"meta": 3}})", "meta"), "[1, 2]");
  EXPECT_EQ(RawJsonMember(R"({"a": "\"meta\": 9"})", "meta"), std::nullopt) << "inside a string is not a member";
  EXPECT_EQ(RawJsonMember(R"({"m\u0065ta": true})", "meta"), "true") << "an escaped key is the key it reads as";
  // An array whose first ']' is not its own (the quick path for a vector
  // must not take it).
  EXPECT_EQ(RawJsonMember(R"({"v":[1,["]",2]],"meta":{"k":"]"}})", "meta"), R"({"k":"]"})");
  EXPECT_EQ(RawJsonMember(R"({"v":[1,{"a":[2]}],"meta":3})", "meta"), "3");
}

TEST(ForEachJsonMember, GivesEveryTopLevelMemberInOrderAndStopsWhenAsked) {
  std::vector<std::pair<std::string, std::string>> seen;
  auto collect = [&seen](std::string_view key, std::string_view value) {
    seen.emplace_back(key, value);
    return true;
  };
  EXPECT_TRUE(ForEachJsonMember(R"({"a":[1.5,-2e-3],"b\"":{"c":[[1]]}, "d" : "x,}" ,"e":null})", collect));
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {R"("a")", "[1.5,-2e-3]"}, {R"("b\"")", R"({"c":[[1]]})"}, {R"("d")", R"("x,}")"},
                      {R"("e")", "null"}}));
  seen.clear();
  EXPECT_TRUE(ForEachJsonMember(R"({"a":"x\\","b":"\\\"]","c":1})", collect));
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {R"("a")", R"("x\\")"}, {R"("b")", R"("\\\"]")"}, {R"("c")", "1"}}))
      << "a quote after an even number of backslashes ends a string, after an odd number it does not";
  seen.clear();
  EXPECT_TRUE(ForEachJsonMember("{}", collect));
  EXPECT_TRUE(seen.empty());
  EXPECT_FALSE(ForEachJsonMember("[1]", collect)) << "not an object";
  int calls = 0;
  EXPECT_TRUE(ForEachJsonMember(R"({"a":1,"b":2})", [&calls](std::string_view, std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace qinfer
