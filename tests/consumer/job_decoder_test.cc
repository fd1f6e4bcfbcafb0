#include "qinfer/consumer/job_decoder.h"

#include "qinfer/core/outcome_json.h"
#include "decoder_paths.h"

#include <gtest/gtest.h>

#include <random>

namespace qinfer::consumer {
namespace {

const DecoderLimits kLimits{/*vocab_size=*/100, /*max_tokens=*/8};

Decoded DecodeValue(std::string_view value, std::string_view key = "") {
  RawMessage m;
  m.key = key;
  m.value = value;
  m.origin = {"jobs", 2, 41, 7};
  return DecodeJob(m, kLimits);
}

// The one job `d` holds (a message that is not chunked becomes one job).
const Job& OneJob(const Decoded& d) {
  static const Job kNone;
  const auto* jobs = std::get_if<std::vector<Job>>(&d);
  EXPECT_TRUE(jobs != nullptr && jobs->size() == 1) << "expected one job";
  return jobs != nullptr && jobs->size() == 1 ? jobs->front() : kNone;
}
bool IsJob(const Decoded& d) {
  const auto* jobs = std::get_if<std::vector<Job>>(&d);
  return jobs != nullptr && jobs->size() == 1;
}

// Asserts `d` is a failure with `reason` whose error mentions `needle`.
void ExpectFailure(const Decoded& d, const char* reason, std::string_view needle) {
  ASSERT_TRUE(std::holds_alternative<Outcome>(d)) << "expected a failure record";
  const Outcome& o = std::get<Outcome>(d);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.reason, reason);
  EXPECT_NE(o.error.find(needle), std::string::npos) << o.error;
  EXPECT_EQ(o.origin.offset, 41);
  EXPECT_FALSE(o.payload.empty()) << "the payload is kept for replay";
}

TEST(JobDecoderTest, DecodesAValidJobWithAllFields) {
  Decoded d = DecodeValue(R"({"id":"doc-42","input_ids":[1,2,99],"reply_to":"r","meta":{"a":[1,2]},"attempt":2})");
  ASSERT_TRUE(IsJob(d));
  const Job& job = OneJob(d);
  EXPECT_EQ(job.id, "doc-42");
  EXPECT_EQ(job.input_ids, (std::vector<int64_t>{1, 2, 99}));
  EXPECT_EQ(job.reply_to, "r");
  EXPECT_EQ(job.meta_json, R"({"a":[1,2]})");
  EXPECT_EQ(job.attempt, 2);
  EXPECT_EQ(job.origin, (Origin{"jobs", 2, 41, 7}));
}

TEST(JobDecoderTest, IdDefaultsToKeyThenToTopicPartitionOffset) {
  EXPECT_EQ(OneJob(DecodeValue(R"({"input_ids":[1]})", "k-1")).id, "k-1");
  EXPECT_EQ(OneJob(DecodeValue(R"({"input_ids":[1]})")).id, "jobs/2/41");
  // A key whose first character does not fit max_id_bytes is no id (the
  // fuzzer found a failure record with an empty one).
  DecoderLimits one_byte = kLimits;
  one_byte.max_id_bytes = 1;
  RawMessage m;
  m.key = "\xc3\xa9t\xc3\xa9";
  m.origin = {"jobs", 2, 41, 7};
  for (std::string_view value : {std::string_view(R"({"input_ids":[1]})"), std::string_view("")}) {
    m.value = value;
    for (const Decoded& d : {DecodeJob(m, one_byte), DecodeJobDocument(m, one_byte)}) {
      const std::string id = IsJob(d) ? OneJob(d).id : std::get<Outcome>(d).id;
      EXPECT_EQ(id, "jobs/2/41") << value;
    }
  }
  m.key = "t\xc3\xa9";
  m.value = R"({"input_ids":[1]})";
  EXPECT_EQ(OneJob(DecodeJob(m, one_byte)).id, "t");
}

// DecodeJob and DecodeJobDocument give the same answer for `value`
// (decoder_paths.h).
void ExpectPathsAgree(std::string_view value, const DecoderLimits& limits = kLimits, std::string_view key = "") {
  RawMessage m;
  m.key = key;
  m.value = value;
  m.origin = {"jobs", 2, 41, 7};
  consumer::ExpectPathsAgree(m, limits, value);
}

TEST(JobDecoderTest, PlainMessagesDecodeAsTheDocumentPathDecodesThem) {
  Decoded d = DecodeValue(R"({"id":"j0000001","input_ids":[7,0,99]})");
  ASSERT_TRUE(IsJob(d));
  EXPECT_EQ(OneJob(d).id, "j0000001");
  EXPECT_EQ(OneJob(d).input_ids, (std::vector<int64_t>{7, 0, 99}));
  EXPECT_EQ(OneJob(d).payload, R"({"id":"j0000001","input_ids":[7,0,99]})");
  for (const char* value : {
           R"({"id":"j1","input_ids":[1,2,3]})",
           R"({"input_ids":[1,2,3],"id":"j1"})",
           R"( { "id" : "j1" , "input_ids" : [ 1 , 2 ,3 ] , "reply_to" : "r" } )",
           "{\n\t\"input_ids\":\r[5]}\n",
           R"({"input_ids":[1]})",
           R"({"input_ids":[1],"reply_to":""})",
           // Near misses: each takes the document path, which says why.
           R"({"id":"","input_ids":[1]})",
           R"({"id":"j","input_ids":[]})",
           R"({"id":"j","input_ids":[01]})",
           R"({"id":"j","input_ids":[-1]})",
           R"({"id":"j","input_ids":[1.0]})",
           R"({"id":"j","input_ids":[1e2]})",
           R"({"id":"j","input_ids":[100]})",
           R"({"id":"j","input_ids":[1,2,3,4,5,6,7,8,9]})",
           R"({"id":"j","input_ids":[1,2,3,4,5,6,7,8]})",
           R"({"id":"j","input_ids":[123456789012345678901234]})",
           R"({"id":"j","input_ids":[1],"id":"k"})",
           R"({"id":"j","input_ids":[1],"input_ids":[2]})",
           R"({"id":"j\"k","input_ids":[1]})",
           R"({"id":"j\u0041","input_ids":[1]})",
           R"({"id":"hé","input_ids":[1]})",
           "{\"id\":\"h\xc3\xa9\",\"input_ids\":[1]}",
           "{\"id\":\"bad\xff\",\"input_ids\":[1]}",
           "{\"id\":\"tab\there\",\"input_ids\":[1]}",
           R"({"id":7,"input_ids":[1]})",
           R"({"id":null,"input_ids":[1]})",
           R"({"id":"j","input_ids":[1],"reply_to":null})",
           R"({"id":"j","input_ids":[1],"meta":{}})",
           R"({"id":"j","input_ids":[1],"attempt":0})",
           R"({"id":"j","input_ids":[1]} x)",
           R"({"id":"j","input_ids":[1],})",
           R"({"id":"j","input_ids":[1,]})",
           R"({"id":"j","input_ids":[1])",
           R"({"id":"j","input_ids":[1]}})",
           R"([{"id":"j","input_ids":[1]}])",
           R"({})",
           "",
           R"({"id":"j","input_ids":[[1]]})",
           R"({"id":"j","input_ids":1})",
       }) {
    ExpectPathsAgree(value);
  }
  // Limits the fast path has to respect.
  DecoderLimits tight = kLimits;
  tight.max_id_bytes = 3;
  ExpectPathsAgree(R"({"id":"abcd","input_ids":[1]})", tight);
  ExpectPathsAgree(R"({"id":"abc","input_ids":[1],"reply_to":"abcd"})", tight);
  tight = kLimits;
  tight.max_depth = 1;
  ExpectPathsAgree(R"({"id":"j","input_ids":[1]})", tight);
  tight = kLimits;
  tight.max_message_bytes = 10;
  ExpectPathsAgree(R"({"id":"j","input_ids":[1]})", tight);
  tight = kLimits;
  tight.too_long_policy = policy::kTruncate;
  ExpectPathsAgree(R"({"id":"j","input_ids":[1,2,3,4,5,6,7,8,9,10]})", tight);
  ExpectPathsAgree(R"({"input_ids":[1]})", kLimits, "the-key");
  ExpectPathsAgree(R"({"input_ids":[1]})", kLimits, "bad\xff");
}

TEST(JobDecoderTest, RandomPlainishMessagesDecodeAsTheDocumentPathDecodesThem) {
  std::mt19937 rng(11);
  const std::vector<std::string> pieces = {
      "{", "}", "[",  "]",  ",",   ":",  " ",  "\"id\"", "\"input_ids\"", "\"reply_to\"", "\"j1\"",  "\"\"",
      "0", "7", "42", "99", "100", "01", "-3", "1.5",    "null",          "\"x\\n\"",     "\"meta\""};
  const std::vector<std::string> shapes = {R"({"id":"j","input_ids":[1,2]})",
                                           R"({"input_ids":[3],"reply_to":"r","id":"k"})"};
  for (int i = 0; i < 20000; ++i) {
    std::string value = shapes[size_t(i) % shapes.size()];
    // Mutate a plain message: replace, insert or delete a piece.
    const int edits = int(rng() % 3);
    for (int e = 0; e < edits && !value.empty(); ++e) {
      const size_t at = rng() % value.size();
      const std::string& piece = pieces[rng() % pieces.size()];
      switch (rng() % 3) {
        case 0:
          value.insert(at, piece);
          break;
        case 1:
          value.erase(at, 1 + rng() % 3);
          break;
        default:
          value.replace(at, 1, piece);
          break;
      }
    }
    ExpectPathsAgree(value);
    if (HasFailure()) break;
  }
}

TEST(JobDecoderTest, RejectsNonJson) { ExpectFailure(DecodeValue("{oops"), reason::kInvalid, "not valid JSON"); }

TEST(JobDecoderTest, RejectsNonObject) { ExpectFailure(DecodeValue("[1,2]"), reason::kInvalid, "not a JSON object"); }

TEST(JobDecoderTest, RejectsMissingInputIds) {
  ExpectFailure(DecodeValue(R"({"id":"x"})"), reason::kInvalid, "missing");
}

TEST(JobDecoderTest, RejectsInputIdsThatAreNotAnArray) {
  ExpectFailure(DecodeValue(R"({"input_ids":"1 2 3"})"), reason::kInvalid, "must be an array");
}

TEST(JobDecoderTest, RejectsEmptyInputIds) {
  ExpectFailure(DecodeValue(R"({"input_ids":[]})"), reason::kInvalid, "empty");
}

TEST(JobDecoderTest, RejectsNegativeId) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1,-3]})"), reason::kInvalid, "input_ids[1]");
}

TEST(JobDecoderTest, RejectsIdAtOrAboveVocabSize) {
  ExpectFailure(DecodeValue(R"({"input_ids":[100]})"), reason::kInvalid, "outside [0, 100)");
  ExpectFailure(DecodeValue(R"({"input_ids":[18446744073709551615]})"), reason::kInvalid, "outside");
}

TEST(JobDecoderTest, RejectsNonIntegerIds) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1,2.5]})"), reason::kInvalid, "not an integer");
  ExpectFailure(DecodeValue(R"({"input_ids":["7"]})"), reason::kInvalid, "not an integer");
}

TEST(JobDecoderTest, RejectsBadOptionalFields) {
  ExpectFailure(DecodeValue(R"({"id":5,"input_ids":[1]})"), reason::kInvalid, "`id`");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"reply_to":3})"), reason::kInvalid, "reply_to");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"attempt":-1})"), reason::kInvalid, "attempt");
}

// A field the service ignored would be a wrong answer reported as `ok` (a
// pair's second text dropped, say): every field it does not know is refused
// by name, by the fast path (which leaves such a message to the document
// path) and by the document path alike; only `meta`'s contents are free.
TEST(JobDecoderTest, RefusesAFieldItDoesNotKnowByNameInBothPaths) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"id":"q","text":"q","textPair":"p"})", "unknown field `textPair` (a job has id, input_ids, token_type_ids,"},
      {R"({"id":"q","input_ids":[1,2],"segment_ids":[0,0]})", "unknown field `segment_ids`"},
      {R"({"input_ids":[1],"Id":"x"})", "unknown field `Id`"},
      {R"({"input_ids":[1],"reply_to":"r","replyTo":"s"})", "unknown field `replyTo`"},
      {R"({"input_ids":[1],"a":1,"b":2})", "unknown fields `a`, `b` ("},
      {R"({"input_ids":[1],"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10})",
       "unknown fields `a`, `b`, `c`, `d`, `e`, `f`, `g`, `h` and 2 more ("},
  };
  for (const auto& [value, error] : cases) {
    RawMessage m;
    m.value = value;
    m.origin = {"jobs", 2, 41, 7};
    ExpectFailure(DecodeJob(m, kLimits), reason::kInvalid, error);
    ExpectFailure(DecodeJobDocument(m, kLimits), reason::kInvalid, error);
    ExpectPathsAgree(value);
  }
  // An unknown field's name is cut in the error, which stays bounded.
  const std::string long_key = R"({"input_ids":[1],")" + std::string(5000, 'k') + R"(":1})";
  const Decoded d = DecodeValue(long_key);
  ExpectFailure(d, reason::kInvalid, "unknown field `" + std::string(64, 'k') + "` (");
  EXPECT_LT(std::get<Outcome>(d).error.size(), 400u) << "the name cut to 64 bytes, then the fields a job has";
  // The refusal carries the message's own id, and `meta` may hold anything.
  EXPECT_EQ(std::get<Outcome>(DecodeValue(R"({"id":"doc-9","input_ids":[1],"pair":"p"})")).id, "doc-9");
  const Decoded with_meta = DecodeValue(R"({"input_ids":[1],"meta":{"text_pair":"p","token_type_ids":[0]}})");
  ASSERT_TRUE(IsJob(with_meta));
  EXPECT_EQ(OneJob(with_meta).meta_json, R"({"text_pair":"p","token_type_ids":[0]})");
}

TEST(JobDecoderTest, ABadIdWinsOverTooLongInBothPaths) {
  // Ten ids (max_tokens is 8), the last outside the vocabulary of 100.
  const char* value = R"({"id":"j","input_ids":[1,2,3,4,5,6,7,8,9,100]})";
  RawMessage m;
  m.value = value;
  m.origin = {"jobs", 2, 41, 7};
  for (const Decoded& d : {DecodeJob(m, kLimits), DecodeJobDocument(m, kLimits)}) {
    ExpectFailure(d, reason::kInvalid, "`input_ids[9]` = 100 is outside [0, 100)");
  }
  ExpectPathsAgree(value);
  // The same ids, all in the vocabulary: too_long.
  ExpectFailure(DecodeValue(R"({"id":"j","input_ids":[1,2,3,4,5,6,7,8,9,99]})"), reason::kTooLong, "exceeds");
}

TEST(JobDecoderTest, RejectsTooLongWithItsLength) {
  Decoded d = DecodeValue(R"({"id":"long","input_ids":[1,1,1,1,1,1,1,1,1]})");
  ExpectFailure(d, reason::kTooLong, "exceeds max_tokens 8");
  EXPECT_EQ(std::get<Outcome>(d).id, "long");
  EXPECT_EQ(std::get<Outcome>(d).input_length, 9u);
}

TEST(JobDecoderTest, TruncateToOverrideShortensTheInput) {
  Decoded d = DecodeValue(R"({"input_ids":[1,2,3,4,5,6,7,8,9,10],"truncate_to":4})");
  ASSERT_TRUE(IsJob(d));
  EXPECT_EQ(OneJob(d).input_ids, (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(JobDecoderBoundsTest, RejectsNestingDeeperThanTheBoundBeforeParsing) {
  // 100,000 levels in 200 KB: parsing or printing it recursively would
  // overflow the stack.
  const std::string deep = R"({"input_ids":[1],"meta":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  ExpectFailure(DecodeValue(deep), reason::kInvalid, "deeper than max_depth 32");
  EXPECT_EQ(std::get<Outcome>(DecodeValue(deep)).payload, deep) << "kept whole for replay";
}

TEST(JobDecoderBoundsTest, AcceptsNestingAtTheBound) {
  DecoderLimits limits = kLimits;
  limits.max_depth = 4;
  RawMessage m;
  m.value = R"({"input_ids":[1],"meta":{"a":[{"b":1}]}})";  // depth 4
  EXPECT_TRUE(IsJob(DecodeJob(m, limits)));
  m.value = R"({"input_ids":[1],"meta":{"a":[{"b":[1]}]}})";  // depth 5
  EXPECT_TRUE(std::holds_alternative<Outcome>(DecodeJob(m, limits)));
}

TEST(JobDecoderBoundsTest, NestingDepthIgnoresBracketsInsideStrings) {
  EXPECT_EQ(JsonNestingDepth(R"({"a":"[[[[{{{{\"]]]"})", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"([[["x"]]])", 10), 3);
  EXPECT_EQ(JsonNestingDepth(std::string(1000, '['), 10), 11) << "stops at limit + 1";
  EXPECT_EQ(JsonNestingDepth("", 10), 0);
}

// An escaped quote does not end a string: the nesting after a string that
// holds `\"` is real nesting (a scan that ignored the backslash would take
// `"b":[[[[[[` for string text and let the message past max_depth).
TEST(JobDecoderBoundsTest, NestingDepthHonoursBackslashEscapesInStrings) {
  EXPECT_EQ(JsonNestingDepth(R"({"a":"\"","b":[[[[[[]]]]]]})", 10), 7);
  EXPECT_EQ(JsonNestingDepth(R"({"a":"\"","b":[[[[[[]]]]]]})", 3), 4) << "over the limit";
  EXPECT_EQ(JsonNestingDepth(R"(["\\",[[[1]]]])", 10), 4) << "an escaped backslash ends nothing";
  EXPECT_EQ(JsonNestingDepth(R"(["\\\"[[[",1])", 10), 1) << "\\\\ then \\\" stay inside the string";
  DecoderLimits limits = kLimits;
  limits.max_depth = 4;
  RawMessage m;
  m.value = R"({"input_ids":[1],"meta":{"q":"\"","a":[[[[1]]]]}})";  // depth 6
  const Decoded decoded = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(decoded));
  EXPECT_NE(std::get<Outcome>(decoded).error.find("max_depth 4"), std::string::npos)
      << std::get<Outcome>(decoded).error;
}

TEST(JobDecoderBoundsTest, AnOversizedMessageKeepsABoundedPrefixAndItsCoordinates) {
  DecoderLimits limits = kLimits;
  limits.max_message_bytes = 10000;
  const std::string big = R"({"input_ids":[)" + std::string(20000, '1') + "]}";
  RawMessage m;
  m.value = big;
  m.origin = {"jobs", 2, 41, 7};
  Decoded d = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(d));
  const Outcome& o = std::get<Outcome>(d);
  EXPECT_EQ(o.reason, reason::kInvalid);
  EXPECT_NE(o.error.find("more than max_message_bytes 10000"), std::string::npos) << o.error;
  EXPECT_TRUE(o.payload_truncated);
  EXPECT_EQ(o.payload, big.substr(0, kPayloadPrefixBytes));
  EXPECT_EQ(o.origin, (Origin{"jobs", 2, 41, 7}));
  EXPECT_EQ(o.id, "jobs/2/41");
}

TEST(JobDecoderBoundsTest, RejectsAMetaLargerThanItsBound) {
  DecoderLimits limits = kLimits;
  limits.max_meta_bytes = 100;
  const std::string fat = R"({"input_ids":[1],"meta":{"s":")" + std::string(200, 'x') + R"("}})";
  const std::string slim = R"({"input_ids":[1],"meta":{"s":")" + std::string(50, 'x') + R"("}})";
  RawMessage m;
  m.value = fat;
  Decoded d = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(d));
  EXPECT_NE(std::get<Outcome>(d).error.find("max_meta_bytes 100"), std::string::npos);
  m.value = slim;
  EXPECT_TRUE(IsJob(DecodeJob(m, limits)));
}

// `meta` is kept as the producer's bytes (its whitespace and key order), and
// the record carries them so; its bound counts those bytes.
TEST(JobDecoderMetaTest, MetaIsKeptAsTheBytesItArrivedAs) {
  const std::string meta = R"({ "z" : 1,  "a":[ "x\u00e9", {"k":null} ] })";
  Decoded d = DecodeValue(R"({"meta" : )" + meta + R"( , "input_ids":[1], "id":"m"})");
  ASSERT_TRUE(IsJob(d));
  EXPECT_EQ(OneJob(d).meta_json, meta);
  Outcome o = OutcomeFor(OneJob(d));
  o.ok = true;
  EXPECT_NE(OutcomeToJson(o).find(meta), std::string::npos) << OutcomeToJson(o);
  // A member that only looks like meta, inside a string or a nested object,
  // is not it; a key written with escapes is.
  Decoded nested = DecodeValue(R"({"id":"n","input_ids":[1],"reply_to":"\"meta\": 1","meta":[1, 2]})");
  EXPECT_EQ(OneJob(nested).meta_json, "[1, 2]");
  Decoded escaped = DecodeValue(R"({"id":"e","input_ids":[1],"m\u0065ta":  "v" })");
  EXPECT_EQ(OneJob(escaped).meta_json, R"("v")");
}

TEST(JobDecoderMetaTest, AMetaOverSeveralLinesIsKeptOnOne) {
  Decoded d = DecodeValue("{\"id\":\"l\",\"input_ids\":[1],\"meta\":{\n  \"a\": 1\n}}");
  ASSERT_TRUE(IsJob(d));
  EXPECT_EQ(OneJob(d).meta_json, R"({"a":1})") << "a record is one line";
}

TEST(JobDecoderMetaTest, TheBoundCountsTheBytesAsSent) {
  DecoderLimits limits = kLimits;
  limits.max_meta_bytes = 10;
  RawMessage m;
  const std::string spaced = R"({"input_ids":[1],"meta":{"a":     1}})";  // 7 bytes compact, 12 as sent
  m.value = spaced;
  Decoded d = DecodeJob(m, limits);
  ASSERT_TRUE(std::holds_alternative<Outcome>(d));
  EXPECT_NE(std::get<Outcome>(d).error.find("`meta` is 12 bytes"), std::string::npos) << std::get<Outcome>(d).error;
}

TEST(JobDecoderBoundsTest, RejectsOverlongIdsAndReplyTopicsAndCutsAnOverlongKey) {
  const std::string long_id(600, 'i');
  ExpectFailure(DecodeValue(R"({"id":")" + long_id + R"(","input_ids":[1]})"), reason::kInvalid,
                "`id` is longer than 512 bytes");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"reply_to":")" + long_id + R"("})"), reason::kInvalid,
                "`reply_to` is longer than 512 bytes");
  const Outcome o = std::get<Outcome>(DecodeValue("not json", long_id));
  EXPECT_EQ(o.id.size(), 512u) << "a record's id stays bounded too";
}

TEST(JobDecoderBoundsTest, RejectsANulByteWhateverFollowsIt) {
  const std::string value = std::string(R"({"input_ids":[4]})") + '\0' + "\xff trailing";
  ExpectFailure(DecodeValue(value), reason::kInvalid, "NUL byte");
}

TEST(JobDecoderBoundsTest, RejectsAttemptAndTruncateToBeyondTheirRange) {
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"attempt":2147483648})"), reason::kInvalid,
                "`attempt` must be an integer in [0, 1000000]");
  ExpectFailure(DecodeValue(R"({"input_ids":[1],"truncate_to":4294967295})"), reason::kInvalid,
                "`truncate_to` must be a positive integer");
}

TEST(JobDecoderBoundsTest, AKeyThatIsNotUtf8IsNotUsedAsTheId) {
  EXPECT_EQ(OneJob(DecodeValue(R"({"input_ids":[1]})", "\xff\xfe")).id, "jobs/2/41");
  // A long key is cut on a character boundary, never inside one.
  const std::string key = std::string(511, 'k') + "\xc3\xa9";
  EXPECT_EQ(OneJob(DecodeValue(R"({"input_ids":[1]})", key)).id, std::string(511, 'k'));
}

// ---- over-long inputs: policies, windows, replay fields

Decoded DecodeWith(const DecoderLimits& limits, std::string_view value) {
  RawMessage m;
  m.value = value;
  m.origin = {"jobs", 2, 41, 7};
  return DecodeJob(m, limits);
}

// {"id":"long","input_ids":[0,1,...,n-1]<extra>}
std::string LongJob(int n, const std::string& extra = "") {
  std::string v = R"({"id":"long","input_ids":[)";
  for (int i = 0; i < n; ++i) v += (i ? "," : "") + std::to_string(i % 100);
  return v + "]" + extra + "}";
}

TEST(JobDecoderPolicyTest, RejectIsTheDefaultAndSaysHowToReplay) {
  ExpectFailure(DecodeWith(kLimits, LongJob(9)), reason::kTooLong,
                "replay it with --policy truncate, chunk or long_lane");
}

TEST(JobDecoderPolicyTest, TruncateKeepsTheFirstMaxTokensAndSaysSo) {
  DecoderLimits limits = kLimits;
  limits.too_long_policy = policy::kTruncate;
  const Job job = OneJob(DecodeWith(limits, LongJob(20)));
  EXPECT_EQ(job.input_ids, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(job.original_length, 20u);
  EXPECT_EQ(job.policy, policy::kTruncate);
  const Outcome o = OutcomeFor(job);
  EXPECT_EQ(o.policy, "truncate");
  EXPECT_EQ(o.original_length, 20u);
  EXPECT_EQ(o.input_length, 8u);

  const Job fits = OneJob(DecodeWith(limits, LongJob(8)));
  EXPECT_TRUE(fits.policy.empty()) << "no policy applies to an input that fits";
  EXPECT_EQ(fits.original_length, 0u);
}

TEST(JobDecoderPolicyTest, AJobsOwnPolicyOverridesTheConfiguredOne) {
  const Job job = OneJob(DecodeWith(kLimits, LongJob(20, R"(,"policy":"truncate")")));
  EXPECT_EQ(job.length(), 8u);
  DecoderLimits truncating = kLimits;
  truncating.too_long_policy = policy::kTruncate;
  ExpectFailure(DecodeWith(truncating, LongJob(20, R"(,"policy":"reject")")), reason::kTooLong, "exceeds max_tokens 8");
  ExpectFailure(DecodeWith(kLimits, LongJob(3, R"(,"policy":"cut")")), reason::kInvalid, "`policy` must be one of");
  ExpectFailure(DecodeWith(kLimits, LongJob(3, R"(,"policy":7)")), reason::kInvalid, "`policy` must be one of");
}

TEST(JobDecoderPolicyTest, TruncateToCutsFirstAndTheCutIsRecorded) {
  const Job job = OneJob(DecodeWith(kLimits, LongJob(20, R"(,"truncate_to":5)")));
  EXPECT_EQ(job.length(), 5u);
  EXPECT_EQ(job.original_length, 20u);
  EXPECT_EQ(job.policy, policy::kTruncate);
  // A cut that still leaves too much is too long under reject.
  ExpectFailure(DecodeWith(kLimits, LongJob(20, R"(,"truncate_to":12)")), reason::kTooLong, "input length 12");
}

TEST(JobDecoderPolicyTest, ChunkKeepsTheWholeInputWithinMaxChunks) {
  DecoderLimits limits = kLimits;
  limits.too_long_policy = policy::kChunk;
  limits.max_chunks = 3;
  const Decoded d = DecodeWith(limits, LongJob(24));
  ASSERT_TRUE(std::holds_alternative<std::vector<Job>>(d));
  const std::vector<Job>& windows = std::get<std::vector<Job>>(d);
  ASSERT_EQ(windows.size(), 3u) << "the decoder splits a chunked input into its windows";
  for (size_t w = 0; w < windows.size(); ++w) {
    EXPECT_EQ(windows[w].length(), 8u);
    EXPECT_EQ(windows[w].policy, policy::kChunk);
    EXPECT_EQ(windows[w].original_length, 24u);
    EXPECT_EQ(windows[w].window, int(w));
    EXPECT_EQ(windows[w].input_ids.front(), int64_t(8 * w));
  }
  ExpectFailure(DecodeWith(limits, LongJob(25)), reason::kTooLong, "needs 4 windows of 8, more than max_chunks 3");
  limits.chunk_allowed = false;
  ExpectFailure(DecodeWith(limits, LongJob(9)), reason::kTooLong, "policy chunk is not defined for task embed");
}

TEST(JobDecoderPolicyTest, LongLaneAdmitsUpToItsOwnBound) {
  DecoderLimits limits = kLimits;
  limits.too_long_policy = policy::kLongLane;
  ExpectFailure(DecodeWith(limits, LongJob(9)), reason::kTooLong, "no long lane (long_lane.max_tokens is 0)");
  limits.long_lane_max_tokens = 16;
  const Job job = OneJob(DecodeWith(limits, LongJob(16)));
  EXPECT_EQ(job.length(), 16u);
  EXPECT_EQ(job.policy, policy::kLongLane);
  ExpectFailure(DecodeWith(limits, LongJob(17)), reason::kTooLong, "exceeds long_lane.max_tokens 16");
}

// `dimensions` (encode(truncate_dim=N)): a positive integer no larger than
// the embedding, for an embed model only; anything else is refused by name.
TEST(JobDecoderFieldsTest, DimensionsAreAPositiveIntegerUpToTheEmbeddingForAnEmbedModelOnly) {
  DecoderLimits limits = kLimits;
  limits.dim = 16;
  auto decode = [&](const std::string& dims) {
    return DecodeWith(limits, R"({"id":"d","input_ids":[1,2],"dimensions":)" + dims + "}");
  };
  EXPECT_EQ(OneJob(decode("8")).dimensions, 8);
  EXPECT_EQ(OneJob(decode("16")).dimensions, 16);
  EXPECT_EQ(OneJob(DecodeWith(limits, R"({"id":"d","input_ids":[1,2]})")).dimensions, 0) << "the whole vector";
  for (const char* bad : {"0", "-3", "2.5", "\"8\"", "true", "[8]"}) {
    ExpectFailure(decode(bad), reason::kInvalid, "`dimensions` must be a positive integer");
  }
  ExpectFailure(decode("17"), reason::kInvalid, "`dimensions` 17 is more than the model's 16 dimensions");
  limits.task = "classify";
  ExpectFailure(decode("8"), reason::kInvalid, "`dimensions`: this model's task is classify");
}

// `encoding` (how the result's output is written): one of the six names;
// a compact one for an embed model only; int8 / uint8 only where the
// service has calibration ranges. Anything else is refused by name.
TEST(JobDecoderFieldsTest, EncodingIsAKnownNameCompactForEmbedOnlyAndInt8OnlyWithRanges) {
  DecoderLimits limits = kLimits;
  auto decode = [&](const std::string& encoding) {
    return DecodeWith(limits, R"({"id":"e","input_ids":[1,2],"encoding":)" + encoding + "}");
  };
  for (const char* name : {"float", "base64", "binary", "ubinary"}) {
    EXPECT_EQ(OneJob(decode(std::string("\"") + name + "\"")).encoding, name);
  }
  EXPECT_EQ(OneJob(DecodeWith(limits, R"({"id":"e","input_ids":[1,2]})")).encoding, "") << "as configured";
  for (const char* bad : {"\"float16\"", "\"Base64\"", "1", "[\"base64\"]"}) {
    ExpectFailure(decode(bad), reason::kInvalid,
                  "`encoding` must be one of float, base64, binary, ubinary, int8, uint8");
  }
  ExpectFailure(decode("\"int8\""), reason::kInvalid, "`encoding` int8 needs calibration ranges");
  ExpectFailure(decode("\"uint8\""), reason::kInvalid, "`encoding` uint8 needs calibration ranges");
  limits.int8_ranges = true;
  EXPECT_EQ(OneJob(decode("\"int8\"")).encoding, "int8");
  EXPECT_EQ(OneJob(decode("\"uint8\"")).encoding, "uint8");
  limits.task = "token_embed";
  EXPECT_EQ(OneJob(decode("\"base64\"")).encoding, "base64") << "a vector a token, as float32 bytes";
  ExpectFailure(decode("\"ubinary\""), reason::kInvalid,
                "`encoding` ubinary: this model's task is token_embed; its vectors are written as float or base64");
  limits.task = "rerank";
  ExpectFailure(decode("\"base64\""), reason::kInvalid,
                "`encoding` base64: this model's task is rerank; the compact encodings are for embeddings");
  EXPECT_EQ(OneJob(decode("\"float\"")).encoding, "float") << "float is every task's output";
}

// `top_k` (SparseEncoder's max_active_dims): a positive integer, for a
// sparse model only.
TEST(JobDecoderFieldsTest, TopKIsAPositiveIntegerForASparseModelOnly) {
  DecoderLimits limits = kLimits;
  auto decode = [&](const std::string& k) {
    return DecodeWith(limits, R"({"id":"k","input_ids":[1,2],"top_k":)" + k + "}");
  };
  ExpectFailure(decode("8"), reason::kInvalid, "`top_k`: this model's task is embed");
  limits.task = "sparse";
  EXPECT_EQ(OneJob(decode("8")).top_k, 8);
  EXPECT_EQ(OneJob(DecodeWith(limits, R"({"id":"k","input_ids":[1,2]})")).top_k, 0) << "every weight";
  for (const char* bad : {"0", "-1", "2.5", "\"8\"", "3000000000"}) {
    ExpectFailure(decode(bad), reason::kInvalid, "`top_k` must be a positive integer");
  }
  ExpectFailure(DecodeWith(limits, R"({"id":"k","input_ids":[1,2],"encoding":"base64"})"), reason::kInvalid,
                "`encoding` base64: this model's task is sparse");
}

TEST(JobDecoderPolicyTest, ReplayFieldsAreDecodedAndCarriedIntoFailures) {
  const std::string replay = R"(,"attempt":2,"device":"cpu","replay_of":{"topic":"jobs","partition":1,"offset":77})";
  const Job job = OneJob(DecodeWith(kLimits, LongJob(3, replay)));
  EXPECT_EQ(job.device, "cpu");
  EXPECT_EQ(job.replay_of, (Origin{"jobs", 1, 77, 0}));
  EXPECT_EQ(OutcomeFor(job).replay_of, job.replay_of);
  const Decoded again = DecodeWith(kLimits, LongJob(9, replay));
  ExpectFailure(again, reason::kTooLong, "exceeds max_tokens");
  EXPECT_EQ(std::get<Outcome>(again).attempt, 2);
  EXPECT_EQ(std::get<Outcome>(again).replay_of.offset, 77);
  ExpectFailure(DecodeWith(kLimits, LongJob(3, R"(,"device":"cuda:0")")), reason::kInvalid, "`device` must be");
  ExpectFailure(DecodeWith(kLimits, LongJob(3, R"(,"replay_of":{"topic":"t"})")), reason::kInvalid,
                "`replay_of` must be");
}

TEST(WindowsTest, WindowsCoverTheInputWithTheirOverlap) {
  EXPECT_EQ(WindowCount(8, 8, 0), 1u);
  EXPECT_EQ(WindowCount(9, 8, 0), 2u);
  EXPECT_EQ(WindowCount(24, 8, 0), 3u);
  EXPECT_EQ(WindowCount(20, 8, 2), 3u);  // [0,8) [6,14) [12,20)
  EXPECT_EQ(WindowCount(21, 8, 2), 4u);

  Job job;
  job.id = "doc";
  job.payload = "the message";
  job.origin = {"jobs", 0, 5, 1};
  job.attempt = 1;
  for (int i = 0; i < 21; ++i) job.input_ids.push_back(i);
  const std::vector<Job> windows = SplitIntoWindows(job, 8, 2);
  ASSERT_EQ(windows.size(), 4u);
  const std::vector<std::pair<int, int>> spans = {{0, 8}, {6, 14}, {12, 20}, {18, 21}};
  for (size_t w = 0; w < windows.size(); ++w) {
    std::vector<int64_t> expected;
    for (int t = spans[w].first; t < spans[w].second; ++t) expected.push_back(t);
    EXPECT_EQ(windows[w].input_ids, expected) << "window " << w;
    EXPECT_EQ(windows[w].window, int(w));
    EXPECT_EQ(windows[w].windows, 4);
    EXPECT_EQ(windows[w].original_length, 21u);
    EXPECT_EQ(windows[w].id, "doc");
    EXPECT_EQ(windows[w].origin, job.origin);
    EXPECT_EQ(windows[w].attempt, 1);
    EXPECT_EQ(windows[w].payload, w == 0 ? "the message" : "") << "only the first window holds the payload";
  }
}

}  // namespace
}  // namespace qinfer::consumer
