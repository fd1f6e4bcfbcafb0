#include "qinfer/consumer/job_decoder.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "decoder_internal.h"
#include "qinfer/core/utf8.h"
#include "qinfer/tokenizer/tokenizer.h"

namespace qinfer::consumer {

int JsonNestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

Outcome FailureForMessage(const RawMessage& m, std::string id, const char* reason, std::string error,
                          size_t input_length) {
  Job stub;
  stub.id = std::move(id);
  stub.payload = std::string(m.value);
  stub.origin = m.origin;
  Outcome out = FailureFor(stub, reason, std::move(error));
  out.input_length = input_length;
  return out;
}

namespace {

// The fast path of DecodeJob reads a message that is an object with either
// "input_ids" (an array of 1..max_tokens integers, each written as plain
// digits without a leading zero and in [0, vocab_size)) or "text" (a string
// without escapes or control characters), and "id" and "reply_to" if present
// (strings of 1..max_id_bytes printable ASCII characters without escapes),
// each key once, nothing else but JSON whitespace. Such a message has no
// envelope fields, so the full path would give it the defaults (no policy
// asked for, attempt 0). Anything else, valid or not, takes the full path,
// which then says what is wrong with it.
class PlainJobReader {
 public:
  PlainJobReader(std::string_view text, const DecoderLimits& limits)
      : p_(text.data()), end_(text.data() + text.size()), limits_(limits) {}

  // Fills `job`'s id (when the message has one), reply_to and input_ids,
  // or `text` (a view into the message) for a text job.
  bool Read(Job& job, bool& has_id, std::optional<std::string_view>& text) {
    bool seen_ids = false, seen_text = false, seen_reply_to = false;
    has_id = false;
    if (!Consume('{')) return false;
    while (true) {
      std::string_view key;
      if (!String(key) || !Consume(':')) return false;
      if (key == "input_ids" && !seen_ids && !seen_text) {
        seen_ids = true;
        if (!Ids(job.input_ids)) return false;
      } else if (key == "text" && !seen_text && !seen_ids) {
        seen_text = true;
        // Bytes from 0x80 on are not checked here: a text that is not
        // UTF-8 fails in the tokenizer, and its message then takes the full
        // path, whose parser says so.
        if (!String(text.emplace(), /*ascii=*/false)) return false;
      } else if (key == "id" && !has_id) {
        has_id = true;
        std::string_view id;
        if (!String(id) || id.empty() || id.size() > limits_.max_id_bytes) return false;
        job.id.assign(id);
      } else if (key == "reply_to" && !seen_reply_to) {
        seen_reply_to = true;
        std::string_view reply_to;
        if (!String(reply_to) || reply_to.size() > limits_.max_id_bytes) return false;
        job.reply_to.assign(reply_to);
      } else {
        return false;
      }
      if (Consume(',')) continue;
      if (!Consume('}')) return false;
      SkipSpace();
      return p_ == end_ && (seen_ids || seen_text);
    }
  }

 private:
  void SkipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  // A string without escapes or control characters; with `ascii`, of
  // printable ASCII only.
  bool String(std::string_view& out, bool ascii = true) {
    if (!Consume('"')) return false;
    const char* begin = p_;
    while (p_ != end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c == '\\' || (ascii && c >= 0x7f)) return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out = std::string_view(begin, size_t(p_ - begin));
    ++p_;
    return true;
  }
  bool Ids(std::vector<int64_t>& ids) {
    if (!Consume('[')) return false;
    ids.clear();
    while (true) {
      SkipSpace();
      const char* begin = p_;
      int64_t v = 0;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
        if (p_ - begin >= 18) return false;  // far beyond any vocabulary
        v = v * 10 + (*p_ - '0');
        ++p_;
      }
      const size_t digits = size_t(p_ - begin);
      if (digits == 0 || (digits > 1 && *begin == '0')) return false;
      if (v >= limits_.vocab_size || ids.size() == limits_.max_tokens) return false;
      ids.push_back(v);
      if (Consume(',')) continue;
      return Consume(']');
    }
  }

  const char* p_;
  const char* end_;
  const DecoderLimits& limits_;
};

}  // namespace

Decoded DecodeJob(const RawMessage& m, const DecoderLimits& limits) {
  // The bounds that hold before any parse: a plain message is within them
  // when the full path's checks below would pass (its nesting depth is 2).
  // A vision-only model refuses token jobs: the full path says so.
  if (m.value.size() <= limits.max_message_bytes && limits.max_depth >= 2 && limits.takes_tokens) {
    Job job;
    bool has_id = false;
    std::optional<std::string_view> text;
    if (PlainJobReader(m.value, limits).Read(job, has_id, text)) {
      if (!has_id) job.id = DefaultId(m, limits.max_id_bytes);
      job.origin = m.origin;
      job.payload = std::string(m.value);
      if (text) {
        // The full path's own text steps; a failure record is left to the
        // full path to write, so that every record has one writer.
        const JobFailure fail(m, job);
        Decoded decoded = DecodeText(std::move(job), *text, nullptr, "", limits, fail);
        if (std::holds_alternative<std::vector<Job>>(decoded)) return decoded;
      } else if (!limits.spans) {  // a tokens model refuses input_ids (the full path says why)
        std::vector<Job> jobs;
        jobs.push_back(std::move(job));
        return jobs;
      }
    }
  }
  return DecodeJobDocument(m, limits);
}

Admission Admit(size_t length, size_t special, size_t truncate_to, std::string_view policy,
                const DecoderLimits& limits) {
  const std::string applied(policy.empty() ? std::string_view(limits.too_long_policy) : policy);
  Admission a;
  a.kept = truncate_to > 0 ? std::min(length, truncate_to) : length;
  if (a.kept < length) a.kind = Admission::Kind::kTruncate;
  if (a.kept <= limits.max_tokens) return a;
  const std::string over = "input length " + std::to_string(a.kept);
  if (applied == policy::kTruncate) {
    a.kind = Admission::Kind::kTruncate;
    a.kept = limits.max_tokens;
  } else if (applied == policy::kChunk) {
    if (!limits.chunk_allowed) {
      a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) + "; policy chunk is not defined for " +
                "task " + limits.task + " (no library pools its windows): replay it with --policy truncate or long_lane";
      return a;
    }
    // A window of a text holds max_tokens - special tokens of its own.
    const size_t room = limits.max_tokens - std::min(special, limits.max_tokens);
    if (room <= limits.chunk_overlap) {
      a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) + "; a window has room for " +
                std::to_string(room) + " tokens beside its " + std::to_string(special) +
                " special tokens, not more than admission.chunk_overlap " + std::to_string(limits.chunk_overlap);
      return a;
    }
    a.windows = WindowCount(a.kept - std::min(special, a.kept), room, limits.chunk_overlap);
    if (a.windows > limits.max_chunks) {
      a.error = over + " needs " + std::to_string(a.windows) + " windows of " + std::to_string(limits.max_tokens) +
                ", more than max_chunks " + std::to_string(limits.max_chunks);
      return a;
    }
    a.kind = Admission::Kind::kChunk;
  } else if (applied == policy::kLongLane) {
    if (a.kept > limits.long_lane_max_tokens) {
      a.error = over + (limits.long_lane_max_tokens == 0
                            ? " exceeds max_tokens " + std::to_string(limits.max_tokens) +
                                  " and this service has no long lane (long_lane.max_tokens is 0)"
                            : " exceeds long_lane.max_tokens " + std::to_string(limits.long_lane_max_tokens));
      return a;
    }
    a.kind = Admission::Kind::kLongLane;
  } else {
    a.error = over + " exceeds max_tokens " + std::to_string(limits.max_tokens) +
              "; replay it with --policy truncate, chunk or long_lane";
  }
  return a;
}


Decoded DecodeJobDocument(const RawMessage& m, const DecoderLimits& limits) {
  Job job;
  job.id = DefaultId(m, limits.max_id_bytes);
  json doc;
  if (auto failure = ParseBounded(m, job.id, limits, doc)) return *std::move(failure);
  if (std::optional<std::string> bad = ReadId(doc, limits, job.id)) {
    return FailureForMessage(m, job.id, reason::kInvalid, *std::move(bad), 0);
  }
  if (std::optional<std::string> bad = UnknownFieldsError(doc)) {
    return FailureForMessage(m, job.id, reason::kInvalid, *std::move(bad), 0);
  }
  // Step 2 (its presence first, so that the envelope's errors carry the
  // input's length).
  const InputFields in(doc);
  if (std::optional<std::string> bad = CheckInputs(in, limits)) {
    return FailureForMessage(m, job.id, reason::kInvalid, *std::move(bad), 0);
  }
  job.origin = m.origin;
  job.payload = std::string(m.value);
  if (auto failure = ReadEnvelope(m, doc, limits, in.has_ids ? in.ids->size() : 0, job)) {
    return *std::move(failure);
  }
  if (in.is_image()) {
    const JobFailure fail(m, job);
    std::string requested = std::move(job.policy);
    job.policy.clear();
    return DecodeImage(std::move(job), in, requested, limits, fail);
  }
  if (job.policy == policy::kResize) {
    return FailureForMessage(m, job.id, reason::kInvalid,
                             "`policy` resize is for image jobs (it scales an image down to "
                             "limits.max_image_pixels); an over-long input takes reject, truncate, chunk or long_lane",
                             in.has_ids ? in.ids->size() : 0);
  }
  if (in.has_ids && !job.prompt_name.empty()) {
    return FailureForMessage(m, job.id, reason::kInvalid,
                             "`prompt_name` goes with `text` (the prompt is joined to the text before it is "
                             "tokenized): with `input_ids`, tokenize the prompt and the text together yourself",
                             in.ids->size());
  }
  const JobFailure fail(m, job);
  const std::string requested = std::move(job.policy);
  job.policy.clear();  // from here: the policy applied, if any

  if (!in.has_ids) {  // steps 2 and 3 for a text (it is tokenized here)
    return DecodeText(std::move(job), in.text->get_ref<const std::string&>(),
                      in.has_pair ? &in.pair->get_ref<const std::string&>() : nullptr, requested, limits, fail);
  }
  // Step 2: the input's length; step 3: admission by length, then the ids
  // the job keeps.
  const size_t length = in.ids->size();
  const Admission a = Admit(length, 0, size_t(job.truncate_to), requested, limits);
  if (!a.error.empty()) return RefusedByLength(in, a, length, limits, fail);
  job.policy = a.policy();
  if (a.kind == Admission::Kind::kTruncate) job.original_length = length;
  return KeepIds(std::move(job), *in.ids, in.has_types ? &*in.types : nullptr, a, length, limits, fail);
}

bool IsTooLongPolicy(std::string_view name) {
  return name == policy::kReject || name == policy::kTruncate || name == policy::kChunk || name == policy::kLongLane;
}

size_t WindowCount(size_t length, size_t window, size_t overlap) {
  if (length <= window) return 1;
  const size_t step = window - overlap;
  return 1 + (length - window + step - 1) / step;
}

std::vector<Job> SplitIntoWindows(Job job, size_t window, size_t overlap) {
  const size_t length = job.length();
  const size_t count = WindowCount(length, window, overlap);
  const size_t step = window - overlap;
  std::vector<std::vector<int64_t>> parts(count);
  for (size_t w = 0; w < count; ++w) {
    const size_t begin = w * step;
    const size_t end = std::min(length, begin + window);
    parts[w].assign(job.input_ids.begin() + ptrdiff_t(begin), job.input_ids.begin() + ptrdiff_t(end));
  }
  return WindowJobs(std::move(job), std::move(parts), length);
}

std::vector<Job> WindowJobs(Job job, std::vector<std::vector<int64_t>> parts, size_t original_length) {
  const size_t count = parts.size();
  std::vector<Job> windows;
  windows.reserve(count);
  std::string payload = std::move(job.payload);
  job.input_ids.clear();
  for (size_t w = 0; w < count; ++w) {
    Job part = job;
    part.input_ids = std::move(parts[w]);
    part.window = int(w);
    part.windows = int(count);
    part.original_length = original_length;
    if (w == 0) part.payload = std::move(payload);
    windows.push_back(std::move(part));
  }
  return windows;
}

}  // namespace qinfer::consumer
