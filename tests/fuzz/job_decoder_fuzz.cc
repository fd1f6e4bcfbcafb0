// libFuzzer target over the job decoder and validator (DecodeJob,
// JsonNestingDepth; DecodeJob's fast path against DecodeJobDocument) and the
// failure record's JSON round trip (OutcomeToJson, OutcomeFromJson). Built and run by tests/fuzz/run.sh; see there.
//
// Input layout:
//   byte 0  key length k (clamped to what is left)
//   byte 1  limits selector s: s % 4 picks which bound is made small, n = s / 4
//           0: defaults   1: max_depth = n   2: max_message_bytes = 16 * n
//           3: max_id_bytes = 1 + n, max_meta_bytes = 4 * n
//   then    k bytes of key, the rest is the message value.
// Every limits set has the tokenizer of tests/data/tiny-tokenizer.json (its
// path: $QINFER_FUZZ_TOKENIZER, set by run.sh), so `text` jobs are decoded
// with a real Hugging Face tokenizer, and end_token_id 3 (its [SEP]).
// Inputs shorter than two bytes are a value with no key and default limits.
//
// Every invariant violation calls Check's __builtin_trap(), which libFuzzer
// reports as a crash and saves as an artifact.

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "qinfer/consumer/job_decoder.h"
#include "qinfer/core/job.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace {

using qinfer::Job;
using qinfer::Origin;
using qinfer::Outcome;
using qinfer::consumer::DecodeJob;
using qinfer::consumer::DecoderLimits;
using qinfer::consumer::JsonNestingDepth;
using qinfer::consumer::kPayloadPrefixBytes;
using qinfer::consumer::RawMessage;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "job_decoder_fuzz: invariant violated: %s\n", what);
  __builtin_trap();
}

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF):
// exactly the text nlohmann's dump keeps as is instead of replacing.
// The id qinfer gives a message whose key cannot serve as one.
std::string Coordinates(const RawMessage& m) {
  return m.origin.topic + "/" + std::to_string(m.origin.partition) + "/" + std::to_string(m.origin.offset);
}

// A validator of its own, independent of qinfer::IsValidUtf8, as an oracle.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the 2nd byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      const unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
      if (b < min || b > max) return false;
    }
    i += n + 1;
  }
  return true;
}

const qinfer::tokenizer::Tokenizer* FuzzTokenizer() {
  static const std::unique_ptr<qinfer::tokenizer::Tokenizer> tokenizer = [] {
    const char* path = std::getenv("QINFER_FUZZ_TOKENIZER");
    if (path == nullptr) {
      std::fprintf(stderr, "QINFER_FUZZ_TOKENIZER is not set (tests/fuzz/run.sh sets it)\n");
      std::abort();
    }
    auto loaded = qinfer::tokenizer::Tokenizer::Load(path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "cannot load %s: %s\n", path, std::string(loaded.status().message()).c_str());
      std::abort();
    }
    return std::move(*loaded);
  }();
  return tokenizer.get();
}

DecoderLimits LimitsFor(uint8_t selector) {
  DecoderLimits limits;
  limits.vocab_size = 4096;
  limits.max_tokens = 512;
  limits.tokenizer = FuzzTokenizer();
  limits.end_token_id = 3;
  const int n = selector / 4;
  switch (selector % 4) {
    case 1:
      limits.max_depth = n;
      break;
    case 2:
      limits.max_message_bytes = size_t(16) * n;
      break;
    case 3:
      limits.max_id_bytes = size_t(1) + n;
      limits.max_meta_bytes = size_t(4) * n;
      break;
    default:
      break;
  }
  return limits;
}

// The nesting depth the parser meets reading a text (a scalar 0, an array
// or object one more than its deepest member), from its SAX events: every
// member the text holds, a duplicate key's earlier values too (a parsed
// document keeps only the last, so its own depth can be less than the
// text's: {"a":[1],"a":2} is 2 deep as text, 1 as a document). An oracle
// that shares nothing with JsonNestingDepth's scan of the text.
struct DepthOfEvents : nlohmann::json_sax<nlohmann::json> {
  int depth = 0, deepest = 0;
  bool Open() {
    deepest = std::max(deepest, ++depth);
    return true;
  }
  bool Close() {
    --depth;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

void CheckNestingDepth(std::string_view value, const DecoderLimits& limits) {
  // The parser's own depth, on the inputs it accepts (nlohmann parses
  // without recursion and frees a document without it too). A NUL byte would
  // end its input early, so those inputs have no oracle.
  int parsed = -1;
  if (value.find('\0') == std::string_view::npos) {
    DepthOfEvents events;
    if (nlohmann::json::sax_parse(value, &events)) parsed = events.deepest;
  }
  for (int limit : {0, 1, limits.max_depth, 32, 1000}) {
    const int depth = JsonNestingDepth(value, limit);
    Check(depth >= 0 && depth <= limit + 1, "JsonNestingDepth within [0, limit+1]");
    // Below the limit the answer is exact, so it does not depend on the limit.
    if (depth <= limit) {
      Check(JsonNestingDepth(value, depth) == depth, "JsonNestingDepth exact below limit");
    }
    if (parsed >= 0) {
      Check(depth == std::min(parsed, limit + 1),
            "JsonNestingDepth is the depth the parser meets (limit + 1 above the limit)");
    }
  }
}

void CheckJob(const Job& job, const RawMessage& m, const DecoderLimits& limits) {
  Check(!job.input_ids.empty(), "job has at least one id");
  Check(job.input_ids.size() <= limits.max_tokens, "job has at most max_tokens ids");
  for (int64_t id : job.input_ids) {
    Check(id >= 0 && id < limits.vocab_size, "job ids in [0, vocab_size)");
  }
  Check(!job.id.empty(), "job id non-empty");
  Check(job.id.size() <= limits.max_id_bytes || job.id == Coordinates(m),
        "job id at most max_id_bytes, or the message's coordinates");
  Check(job.reply_to.size() <= limits.max_id_bytes, "reply_to at most max_id_bytes");
  Check(job.meta_json.size() <= limits.max_meta_bytes, "meta at most max_meta_bytes");
  Check(m.value.size() <= limits.max_message_bytes, "job value at most max_message_bytes");
  Check(JsonNestingDepth(m.value, limits.max_depth) <= limits.max_depth, "job value nests at most max_depth");
  Check(job.payload == (job.window == 0 ? m.value : std::string_view()),
        "job payload is the value (a chunk window's: its first window only)");
  Check(job.origin == m.origin, "job origin is the message's");
  if (job.truncate_to > 0) {
    Check(job.input_ids.size() <= size_t(job.truncate_to), "truncate_to applied");
  }
  // Found by this fuzzer: `attempt` and `truncate_to` once overflowed int,
  // and a NUL byte once ended the parse with any bytes after it accepted.
  Check(job.attempt >= 0, "attempt non-negative");
  Check(job.truncate_to >= 0, "truncate_to non-negative");
  Check(m.value.find('\0') == std::string_view::npos, "job value has no NUL byte");

  // The job's own failure record (e.g. an OOM later) must read back, with
  // everything the job passes through to it.
  const Outcome failure = qinfer::FailureFor(job, qinfer::reason::kOom, "fuzz");
  const auto back = qinfer::OutcomeFromJson(qinfer::OutcomeToJson(failure));
  Check(back.ok(), "job failure record parses back");
  Check(back->id == job.id, "job record id round trip");
  Check(back->reply_to == job.reply_to, "job record reply_to round trip");
  Check(back->meta_json == job.meta_json, "job record meta round trip");
  Check(back->input_length == job.length(), "job record input_length round trip");
  Check(back->payload == job.payload, "job record payload round trip");
  Check(back->attempt == job.attempt, "job record attempt round trip");
}

void CheckFailure(const Outcome& out, const RawMessage& m, const DecoderLimits& limits) {
  Check(!out.ok, "failure is not ok");
  Check(out.reason == qinfer::reason::kInvalid || out.reason == qinfer::reason::kTooLong,
        "failure reason is invalid or too_long");
  Check(!out.error.empty(), "failure has an error");
  Check(!out.id.empty(), "failure id non-empty");
  Check(out.id.size() <= limits.max_id_bytes || out.id == Coordinates(m),
        "failure id at most max_id_bytes, or the message's coordinates");
  Check(out.origin == m.origin, "failure origin is the message's");
  if (out.payload_truncated) {
    Check(m.value.size() > limits.max_message_bytes, "truncated only when too large");
    Check(out.payload.size() <= kPayloadPrefixBytes, "truncated payload is short");
    Check(out.payload == m.value.substr(0, out.payload.size()), "truncated payload is a prefix");
  } else {
    Check(out.payload == m.value, "failure payload is the value");
  }
  if (out.reason == qinfer::reason::kTooLong) {
    Check(out.input_length > limits.max_tokens ||
              (out.input_length == 0 && out.error.find("limits.max_text_bytes") != std::string::npos),
          "too_long only above max_tokens (or a text over max_text_bytes, before it is tokenized)");
  }

  const auto back = qinfer::OutcomeFromJson(qinfer::OutcomeToJson(out));
  Check(back.ok(), "failure record parses back");
  // Found by this fuzzer: an id taken from a key that is not UTF-8, or cut
  // inside a character, once differed in the record from the id it was
  // stored under.
  Check(IsValidUtf8(out.id), "failure id is UTF-8");
  Check(back->id == out.id, "failure record id round trip");
  Check(back->reason == out.reason, "failure record reason round trip");
  Check(back->error == out.error, "failure record error round trip");
  Check(back->input_length == out.input_length, "failure record input_length round trip");
  Check(back->payload_truncated == out.payload_truncated, "payload_truncated round trip");
  // Bytes that are not UTF-8 are kept as base64: every payload round-trips.
  Check(back->payload == out.payload, "failure record payload round trip");
  Check(back->origin.topic == out.origin.topic && back->origin.partition == out.origin.partition &&
            back->origin.offset == out.origin.offset,
        "failure record source round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view key;
  uint8_t selector = 0;
  if (in.size() >= 2) {
    const size_t key_length = std::min<size_t>(static_cast<uint8_t>(in[0]), in.size() - 2);
    selector = static_cast<uint8_t>(in[1]);
    key = in.substr(2, key_length);
    in.remove_prefix(2 + key_length);
  }
  const DecoderLimits limits = LimitsFor(selector);
  const RawMessage m{key, in, Origin{"jobs", 3, 42, 7}};

  CheckNestingDepth(m.value, limits);
  const qinfer::consumer::Decoded decoded = DecodeJob(m, limits);
  // The fast path for plain messages and the document path agree.
  qinfer::consumer::Decoded full = qinfer::consumer::DecodeJobDocument(m, limits);
  if (Outcome* o = std::get_if<Outcome>(&full)) {
    o->completed_at_ms =
        std::get_if<Outcome>(&decoded) != nullptr ? std::get<Outcome>(decoded).completed_at_ms : o->completed_at_ms;
  }
  Check(decoded == full, "DecodeJob agrees with DecodeJobDocument");
  if (const auto* jobs = std::get_if<std::vector<Job>>(&decoded)) {
    Check(!jobs->empty(), "a message becomes at least one job");
    Check(jobs->size() == 1 || size_t(jobs->front().windows) == jobs->size(),
          "several jobs only as the windows of one input");
    for (const Job& job : *jobs) CheckJob(job, m, limits);
  } else {
    CheckFailure(std::get<Outcome>(decoded), m, limits);
  }
  return 0;
}
