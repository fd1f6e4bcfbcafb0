#include "config_keys.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "qinfer/consumer/decode_pool.h"
#include "qinfer/core/output_encoding.h"
#include "qinfer/core/secrets.h"
#include "qinfer/executor/device_memory.h"

namespace qinfer::app {
namespace {

// Field access from a pointer to a section's member: kSection<S> is the
// Config member of section type S.
template <class S>
constexpr S Config::*kSection = nullptr;
template <>
constexpr Config::Model Config::*kSection<Config::Model> = &Config::model;
template <>
constexpr Config::Memory Config::*kSection<Config::Memory> = &Config::memory;
template <>
constexpr Config::Kafka Config::*kSection<Config::Kafka> = &Config::kafka;
template <>
constexpr Config::Limits Config::*kSection<Config::Limits> = &Config::limits;
template <>
constexpr Config::Admission Config::*kSection<Config::Admission> = &Config::admission;
template <>
constexpr Config::Inputs Config::*kSection<Config::Inputs> = &Config::inputs;
template <>
constexpr Config::LongLane Config::*kSection<Config::LongLane> = &Config::long_lane;
template <>
constexpr Config::Recovery Config::*kSection<Config::Recovery> = &Config::recovery;
template <>
constexpr Config::Scheduler Config::*kSection<Config::Scheduler> = &Config::scheduler;
template <>
constexpr Config::Storage Config::*kSection<Config::Storage> = &Config::storage;
template <>
constexpr Config::Http Config::*kSection<Config::Http> = &Config::http;
template <>
constexpr Config::Shutdown Config::*kSection<Config::Shutdown> = &Config::shutdown;
template <>
constexpr Config::HealthChecks Config::*kSection<Config::HealthChecks> = &Config::health;
template <>
constexpr Config::Tokenizer Config::*kSection<Config::Tokenizer> = &Config::tokenizer;
template <>
constexpr Config::Output Config::*kSection<Config::Output> = &Config::output;

template <class M>
struct MemberOf;
template <class S, class T>
struct MemberOf<T S::*> {
  using Section = S;
  using Type = T;
};

template <auto F>
auto& Get(Config& c) {
  return c.*kSection<typename MemberOf<decltype(F)>::Section>.*F;
}
template <auto F>
const auto& Get(const Config& c) {
  return c.*kSection<typename MemberOf<decltype(F)>::Section>.*F;
}

// Integers are stored as int, size_t or a std::chrono duration (in the unit
// the key's name says: _s, _ms).
template <class T>
long long CountOf(const T& v) {
  if constexpr (requires { v.count(); }) {
    return static_cast<long long>(v.count());
  } else {
    return static_cast<long long>(v);
  }
}
template <class T>
T FromCount(long long n) {
  if constexpr (requires(T t) { t.count(); }) {
    return T(n);
  } else {
    return static_cast<T>(n);
  }
}

// "a, b or c" of a kText's choices; "" reads "empty".

absl::Status CheckText(const Key& k, const std::string& v) {
  if (k.check != nullptr) return k.check(k.name, v);
  if (k.choices[0] == nullptr) return absl::OkStatus();
  for (const char* c : k.choices) {
    if (c != nullptr && v == c) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(std::string(k.name) + " = '" + v + "': expected " + ChoiceList(k, false));
}

template <auto F>
absl::Status SetText(const Key& k, Config& c, const std::string& v) {
  if (absl::Status s = CheckText(k, v); !s.ok()) return s;
  Get<F>(c) = v;
  return absl::OkStatus();
}
template <auto F>
absl::Status SetBool(const Key& k, Config& c, const std::string& v) {
  if (v == "true" || v == "1")
    Get<F>(c) = true;
  else if (v == "false" || v == "0")
    Get<F>(c) = false;
  else
    return absl::InvalidArgumentError(std::string(k.name) + " = '" + v + "': expected true or false");
  return absl::OkStatus();
}
template <auto F>
absl::Status SetInteger(const Key& k, Config& c, const std::string& v) {
  auto n = ParseInt(k.name, v, k.min, k.max);
  if (!n.ok()) return n.status();
  Get<F>(c) = FromCount<typename MemberOf<decltype(F)>::Type>(*n);
  return absl::OkStatus();
}
template <auto F>
absl::Status SetNumber(const Key& k, Config& c, const std::string& v) {
  const std::string expected = "a number in " + NumberRange(k);
  auto d = ParseDouble(k.name, v, expected);
  if (!d.ok()) return d.status();
  if (!((k.low_open ? *d > k.low : *d >= k.low) && (k.high_open ? *d < k.high : *d <= k.high))) {
    return absl::InvalidArgumentError(std::string(k.name) + " = '" + v + "': expected " + expected);
  }
  Get<F>(c) = *d;
  return absl::OkStatus();
}
template <auto F>
absl::Status SetTexts(const Key&, Config& c, const std::string& v) {
  Get<F>(c) = SplitList(v);
  return absl::OkStatus();
}
template <auto F>
absl::Status SetIntegers(const Key& k, Config& c, const std::string& v) {
  std::vector<int> items;
  for (const std::string& item : SplitList(v)) {
    auto n = ParseInt(k.name, item, k.min, k.max);
    if (!n.ok()) return n.status();
    items.push_back(int(*n));
  }
  Get<F>(c) = std::move(items);
  return absl::OkStatus();
}

template <auto F>
void EmitScalar(const Key& k, const Config& c, YAML::Emitter& out) {
  using T = typename MemberOf<decltype(F)>::Type;
  out << YAML::Key << LeafOf(k) << YAML::Value;
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    out << Get<F>(c);
  } else if constexpr (std::is_same_v<T, double>) {
    out << Shortest(Get<F>(c));
  } else {
    out << CountOf(Get<F>(c));
  }
}
template <auto F>
void EmitList(const Key& k, const Config& c, YAML::Emitter& out) {
  out << YAML::Key << LeafOf(k) << YAML::Value << YAML::Flow << Get<F>(c);
}
template <auto F>
void EmitMap(const Key& k, const Config& c, YAML::Emitter& out) {
  const auto& properties = Get<F>(c);
  if (properties.empty()) return;
  out << YAML::Key << LeafOf(k) << YAML::Value << YAML::BeginMap;
  for (const auto& [p, v] : properties) out << YAML::Key << p << YAML::Value << ShownValue(p, v);
  out << YAML::EndMap;
}
template <auto F>
std::map<std::string, std::string>& PropertiesOf(Config& c) {
  return Get<F>(c);
}

template <auto F>
constexpr Key Text(const char* name, const char* doc) {
  return Key{.name = name, .kind = Kind::kText, .set = SetText<F>, .emit = EmitScalar<F>, .doc = doc};
}
template <auto F>
constexpr Key Bool(const char* name, const char* doc) {
  return Key{.name = name, .kind = Kind::kBool, .set = SetBool<F>, .emit = EmitScalar<F>, .doc = doc};
}
template <auto F>
constexpr Key Integer(const char* name, long long min, long long max, const char* doc) {
  return Key{.name = name,
             .kind = Kind::kInteger,
             .set = SetInteger<F>,
             .emit = EmitScalar<F>,
             .doc = doc,
             .min = min,
             .max = max};
}
template <auto F>
constexpr Key Number(const char* name, double low, double high, bool high_open, const char* doc) {
  return Key{.name = name,
             .kind = Kind::kNumber,
             .set = SetNumber<F>,
             .emit = EmitScalar<F>,
             .doc = doc,
             .low = low,
             .high = high,
             .high_open = high_open};
}
template <auto F>
constexpr Key Texts(const char* name, const char* doc) {
  return Key{.name = name, .kind = Kind::kTexts, .set = SetTexts<F>, .emit = EmitList<F>, .doc = doc};
}
template <auto F>
constexpr Key Integers(const char* name, long long min, long long max, const char* doc) {
  return Key{.name = name,
             .kind = Kind::kIntegers,
             .set = SetIntegers<F>,
             .emit = EmitList<F>,
             .doc = doc,
             .min = min,
             .max = max};
}
template <auto F>
constexpr Key Properties(const char* name, const char* example, const char* doc) {
  return Key{.name = name,
             .kind = Kind::kMap,
             .set = nullptr,
             .emit = EmitMap<F>,
             .doc = doc,
             .properties = PropertiesOf<F>,
             .example = example};
}

absl::Status CheckDevice(const std::string& key, const std::string& v) {
  if (absl::StatusOr<executor::DeviceSpec> spec = executor::DeviceSpec::Parse(v); !spec.ok()) {
    return absl::InvalidArgumentError(key + " = '" + v + "': " + std::string(spec.status().message()));
  }
  return absl::OkStatus();
}

absl::Status CheckSize(const std::string& key, const std::string& v) {
  if (v.empty()) return absl::OkStatus();
  absl::StatusOr<int64_t> bytes = executor::ParseBytes(v);
  if (!bytes.ok() || *bytes <= 0) {
    return absl::InvalidArgumentError(key + " = '" + v + "': expected a size above 0 (e.g. 20GiB) or empty" +
                                      (bytes.ok() ? "" : ": " + std::string(bytes.status().message())));
  }
  return absl::OkStatus();
}

absl::Status CheckSizeOrZero(const std::string& key, const std::string& v) {
  absl::StatusOr<int64_t> bytes = ParseSizeOrZero(v);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(key + " = '" + v + "': expected a size (e.g. 512MiB), or 0 for none: " +
                                      std::string(bytes.status().message()));
  }
  return absl::OkStatus();
}

absl::Status CheckEncoding(const std::string& key, const std::string& v) {
  if (IsOutputEncoding(v)) return absl::OkStatus();
  return absl::InvalidArgumentError(key + " = '" + v + "': expected one of " + OutputEncodingNames());
}

absl::Status CheckListen(const std::string&, const std::string& v) {
  if (v.empty()) return absl::OkStatus();
  return ParseListenAddress(v).status();
}

// scheduler.formation is an enum, named by FormationName.
absl::Status SetFormation(const Key& k, Config& c, const std::string& v) {
  absl::StatusOr<scheduler::Formation> formation = scheduler::ParseFormation(v);
  if (!formation.ok()) {
    return absl::InvalidArgumentError(std::string(k.name) + ": " + std::string(formation.status().message()));
  }
  c.scheduler.formation = *formation;
  return absl::OkStatus();
}
void EmitFormation(const Key& k, const Config& c, YAML::Emitter& out) {
  out << YAML::Key << LeafOf(k) << YAML::Value << scheduler::FormationName(c.scheduler.formation);
}

using C = Config;

// Every key, in the order of the dump and of the table in
// docs/guide/configuration.md.
constexpr Key kKeys[] = {
    Text<&C::Model::path>("model.path",
                          "TorchScript `model.pt`, or an aoti export's `model-cpu-float32.pt2` (see \"Bring "
                          "your own model\"); `forward(input_ids int64 [B,L], attention_mask int64 [B,L]) -> "
                          "float [B,D]`, with `token_type_ids` third and `[B,L,C]` out where the manifest says so "
                          "(`model/export_hf.py` writes either from a checkpoint directory)")
        .Path()
        .Required()
        .Accepts("a path"),
    Text<&C::Model::manifest>("model.manifest", "`manifest.json`: `vocab_size`, `max_tokens`, `digest`, ...")
        .Path()
        .Accepts("a path")
        .Note("`manifest.json` beside `model.path`"),
    Text<&C::Model::device>("model.device",
                            "the primary device; `cpu-budget:<size>` (e.g. `cpu-budget:512MiB`) "
                            "is the budgeted CPU device (docs/design/memory.md: \"Memory plan "
                            "and the OOM ladder\")")
        .Check(CheckDevice, "`cpu`, `cuda:N` or `cpu-budget:<size>`"),
    Text<&C::Model::fallback_device>("model.fallback_device",
                                     "where a single job that does not fit the primary device runs: `auto` is "
                                     "cpu unless the primary is plain cpu")
        .Choices({"auto", "cpu", "none"}),
    Text<&C::Model::autocast>("model.autocast",
                              "`bf16` or `fp16` autocast on the primary device (fallback runs float32); empty: "
                              "float32. For an aoti export it picks the primary's package (`bfloat16`, "
                              "`float16`, `float32`) instead: a package's precision is fixed when it is exported")
        .Choices({"bf16", "fp16", ""}),
    Number<&C::Model::min_cosine>("model.min_cosine", 0, 1, false,
                                  "with `model.autocast`: start-up runs a probe of synthetic rows in the "
                                  "autocast dtype and in float32 and refuses to start (exit 2) when a row's "
                                  "cosine similarity between the two falls below this (embed models)")
        .LowOpen(),
    Number<&C::Model::max_score_diff>("model.max_score_diff", 0, 1, false,
                                      "with `model.autocast`, for classify, rerank and tokens models: the probe "
                                      "compares the scores their users read (softmax or sigmoid of the logits; "
                                      "each token's for tokens) and refuses to start (exit 2) when one differs "
                                      "from float32's by more than this, or a top label changes"),
    Integer<&C::Model::threads>("model.threads", 0, 4096, "torch intra-op threads").Note("libtorch's default"),
    Text<&C::Model::mkl_dispatch>("model.mkl_dispatch",
                                  "how the MKL inside libtorch (float32 linears, bf16 attention) picks its kernels: "
                                  "`isa` by the instruction sets the CPU reports, on any vendor; `vendor` MKL's "
                                  "own choice, its generic kernels on a CPU not made by Intel (half the float32 "
                                  "speed on an AMD EPYC)")
        .Choices({"isa", "vendor"}),
    Texts<&C::Model::op_libraries>("model.op_libraries",
                                   "shared libraries registering TorchScript custom ops the "
                                   "model calls; loaded (dlopen) before the model")
        .Path()
        .Accepts("a list of paths"),
    Bool<&C::Memory::plan>("memory.plan",
                           "calibrate (or reuse) a memory plan when the device has a budget; caps "
                           "then come from the plan"),
    Number<&C::Memory::margin>("memory.margin", 0, 1, true, "plan within budget × (1 − margin)"),
    Number<&C::Memory::cuda_memory_fraction>("memory.cuda_memory_fraction", 0, 1, false,
                                             "cap the CUDA caching allocator to this share of the card (emulate a "
                                             "smaller card: 0.17 of a 141 GB H200 ≈ a 24 GB A10)")
        .Note("no cap"),
    Text<&C::Memory::cuda_budget>("memory.cuda_budget", "plan within this on CUDA, e.g. `20GiB`")
        .Check(CheckSize, "a size above 0 (`20GiB`) or empty")
        .Note("the (capped) card"),
    Text<&C::Memory::cpu_block_cache>("memory.cpu_block_cache",
                                      "the CPU allocator keeps freed blocks of 128 KiB and more for the next batch, "
                                      "up to this many bytes of free blocks (without it every batch page-faults its "
                                      "tensors in again: 0.6 of the speed on MiniLM in bf16); past it they go back "
                                      "to the system, largest first. A term of the pod's memory sum")
        .Check(CheckSizeOrZero, "a size (`512MiB`), or `0` for none"),
    Text<&C::Kafka::brokers>("kafka.brokers", "bootstrap servers").Accepts("host:port[,host:port...]"),
    Text<&C::Kafka::group_id>("kafka.group_id", "consumer group; run more instances in the group to scale out"),
    Text<&C::Kafka::jobs_topic>("kafka.jobs_topic", "where jobs are read"),
    Text<&C::Kafka::reply_topic>("kafka.reply_topic", "results of jobs without `reply_to` go here").Note("none"),
    Text<&C::Kafka::dead_letter_topic>("kafka.dead_letter_topic", "failure records go here").Note("none"),
    Bool<&C::Kafka::create_topics>("kafka.create_topics",
                                   "every topic named above must exist at start-up, else "
                                   "qinfer refuses to start naming it; `true` creates the "
                                   "missing ones"),
    Integer<&C::Kafka::topic_partitions>("kafka.topic_partitions", 1, 100000,
                                         "partitions of topics that `create_topics` creates"),
    Integer<&C::Kafka::startup_wait>("kafka.startup_wait_s", 1, 3600,
                                     "how long start-up waits for a broker to answer; then it exits 75 "
                                     "(transient: retry)"),
    Properties<&C::Kafka::consumer>("kafka.consumer", "fetch.max.bytes: 1048576",
                                    "librdkafka consumer properties, passed through unchanged (qinfer sets "
                                    "`queued.max.messages.kbytes=16384` and `statistics.interval.ms=5000`, the "
                                    "period of the lag figures, unless you do)"),
    Properties<&C::Kafka::producer>("kafka.producer", "linger.ms: 5",
                                    "librdkafka producer properties, passed through unchanged (qinfer sets "
                                    "`topic.metadata.propagation.max.ms=1000` unless you do: a `reply_to` naming a "
                                    "topic that does not exist is then reported, and its job acked, within about "
                                    "a second instead of librdkafka's 30 s)"),
    Integer<&C::Limits::max_message_bytes>("limits.max_message_bytes", 64, 1LL << 31,
                                           "larger messages become `invalid` records (a 4 KiB prefix and their "
                                           "coordinates)"),
    Integer<&C::Limits::max_depth>("limits.max_depth", 2, 10000,
                                   "deeper nesting of arrays/objects is `invalid`; checked by a scan before the "
                                   "message is parsed"),
    Integer<&C::Limits::max_meta_bytes>("limits.max_meta_bytes", 0, 1LL << 31,
                                        "a larger `meta` (its bytes as sent) is `invalid`; `meta` is kept as sent"),
    Integer<&C::Limits::max_text_bytes>("limits.max_text_bytes", 1, 1LL << 31,
                                        "a longer `text` (with its `text_pair`) is `too_long`, checked before the "
                                        "text is tokenized; under `truncate` a longer single text is cut there "
                                        "instead, before a word"),
    Integer<&C::Limits::max_chunk_text_bytes>("limits.max_chunk_text_bytes", 1, 1LL << 31,
                                              "under `chunk`, a single `text` of up to this many bytes (past "
                                              "`limits.max_text_bytes`) is tokenized and windowed; a longer one is "
                                              "`too_long`. Its encoding is held while it is decoded (about 100 "
                                              "bytes a token)"),
    Integer<&C::Limits::max_image_bytes>("limits.max_image_bytes", 1, 1LL << 31,
                                         "an image job's encoded bytes (inline, a file or a URL's body): a larger "
                                         "one is `too_large`, refused before it is read whole"),
    Integer<&C::Limits::max_image_pixels>("limits.max_image_pixels", 1, 1LL << 40,
                                          "an image's width x height, read from its header before it is decoded: "
                                          "a larger one is `too_large` (replay with `--policy resize` scales it "
                                          "down to the bound); the default is Pillow's decompression-bomb bound"),
    Integer<&C::Limits::max_result_bytes>("limits.max_result_bytes", 1024, 1LL << 31,
                                          "a result record larger than this, whatever its task and encoding, "
                                          "becomes a `too_long` failure record (a `token_embed` result's, a "
                                          "vector a token, says how many tokens fit: `replay --truncate-to N`); "
                                          "results go to the reply topic too, whose "
                                          "`kafka.producer.message.max.bytes` (librdkafka: 1000000) must hold them"),
    Texts<&C::Inputs::image_roots>("inputs.image_roots",
                                   "directories a `file://` `image_url` may name a file under (links "
                                   "resolved); outside them, or with none set, `file://` is `invalid`")
        .Note("none: `file://` off"),
    Number<&C::Inputs::url_timeout>("inputs.url_timeout", 0, 600, false,
                                    "seconds an `http(s)://` `image_url` may take in all, redirects included; "
                                    "past it the job is `invalid`. The fetch holds a tokenizer-pool worker")
        .LowOpen(),
    Integer<&C::Inputs::url_max_redirects>("inputs.url_max_redirects", 0, 20,
                                           "redirects an `http(s)://` `image_url` may take"),
    Text<&C::Admission::too_long>("admission.too_long",
                                  "an input longer than `scheduler.max_tokens`: `reject` (a `too_long` record), "
                                  "`truncate` (its first `max_tokens` ids), `chunk` (windows of `max_tokens`: an "
                                  "embed model's pooled into one result, a tagger's entities and a token_embed "
                                  "model's vectors stitched; not for classify, rerank and sparse), `long_lane` (whole, see `long_lane.max_tokens`); a "
                                  "job's own `policy` wins")
        .Choices({"reject", "truncate", "chunk", "long_lane"}),
    Integer<&C::Admission::chunk_overlap>("admission.chunk_overlap", 0, 1 << 30,
                                          "tokens each chunk window shares with the previous one"),
    Integer<&C::Admission::max_chunks>("admission.max_chunks", 1, 1 << 20,
                                       "an input needing more windows is `too_long`"),
    Integer<&C::LongLane::max_tokens>("long_lane.max_tokens", 0, 1 << 30,
                                      "over-long inputs up to this length run whole, one at a time, on the "
                                      "fallback device; needs a fallback device and a model whose manifest "
                                      "`max_positions` reaches it (start-up refuses otherwise)")
        .Note("off"),
    Integer<&C::Recovery::max_attempts>("recovery.max_attempts", 1, 1000,
                                        "a job that was running when the process died this many times gets a "
                                        "`crash` record instead of running again"),
    Integers<&C::Scheduler::bucket_bounds>("scheduler.bucket_bounds", 1, 1 << 30,
                                           "length buckets, strictly increasing, the last one "
                                           "`scheduler.max_tokens`")
        .Note("powers of two from 16 to `scheduler.max_tokens`"),
    Integer<&C::Scheduler::max_tokens>("scheduler.max_tokens", 0, 1 << 30, "longer inputs follow `admission.too_long`")
        .Note("the model manifest's `max_tokens`"),
    Integer<&C::Scheduler::tokens_per_batch>("scheduler.tokens_per_batch", 1, 1 << 30,
                                             "without a memory plan: batch cap per bucket = tokens_per_batch / "
                                             "bucket bound (at least 1)"),
    Integer<&C::Scheduler::max_batch_size>("scheduler.max_batch_size", 1, 1 << 20, "upper limit on every cap"),
    Integer<&C::Scheduler::max_batch_delay>("scheduler.max_batch_delay_ms", 0, 86400000,
                                            "a partial batch runs once its oldest job waited this long"),
    Key{.name = "scheduler.formation",
        .kind = Kind::kText,
        .set = SetFormation,
        .emit = EmitFormation,
        .doc = "which queued jobs of a bucket make its next batch: `length` sorts the bucket's jobs by length, "
               "cuts them into runs of the cap and takes the run that holds the bucket's oldest job (over a "
               "backlog, what sorting the backlog and chunking it would give); `arrival` takes the cap oldest "
               "(FIFO). Either way every batch holds its bucket's oldest job, so nothing waits behind younger "
               "jobs for more than the bucket's depth in batches",
        .choices = {"length", "arrival"}},
    Number<&C::Scheduler::max_padding>("scheduler.max_padding", 0, 1, true,
                                       "with `length`: a job shorter than (1 − max_padding) × its batch's longest "
                                       "waits for a batch of its own lengths, so no row pads more than this "
                                       "fraction; larger values keep batches fuller at the price of padding"),
    Integer<&C::Scheduler::extra_padding_tokens>(
        "scheduler.extra_padding_tokens", 0, 1 << 20,
        "with `length`: a batch with room under its cap also takes the bucket's next shorter jobs, longest "
        "first, while the padding they add is at most this many tokens in all, so that a few left-out jobs "
        "do not wait for a small batch of their own (a batch's fixed cost is worth about this many tokens of "
        "work on a CPU); 0: max_padding alone"),
    Integer<&C::Scheduler::max_queued_jobs>("scheduler.max_queued_jobs", 1, 1LL << 32,
                                            "at this many queued jobs the consumer waits up to 250 ms for room, "
                                            "then pauses its partitions; it resumes below half"),
    Integer<&C::Scheduler::max_queued_tokens>("scheduler.max_queued_tokens", 1, 1LL << 40,
                                              "the same for the tokens of queued jobs"),
    Integer<&C::Scheduler::max_queued_bytes>("scheduler.max_queued_bytes", 1, 1LL << 50,
                                             "the same for the bytes queued jobs hold (ids, payload, `meta`); at "
                                             "least 2 × `limits.max_message_bytes`"),
    Integer<&C::Tokenizer::threads>("tokenizer.threads", 0, static_cast<long long>(consumer::DecodeStats::kMaxWorkers),
                                    "workers of the tokenizer pool, which decodes and tokenizes the jobs topic's "
                                    "messages off the consumer thread, each with its own tokenizer")
        .Note("the cores `model.threads` leaves, at least 1"),
    Text<&C::Output::encoding>("output.encoding",
                               "how a result's `output` is written when its job names no `encoding`: `float` (JSON "
                               "numbers), `base64` (little-endian float32), `binary` / `ubinary` (packed signs), "
                               "`int8` / `uint8` (with calibration ranges): sentence-transformers' "
                               "quantize_embeddings; the compact ones for embed models only (and `base64` for "
                               "`token_embed`)")
        .Check(CheckEncoding, "float, base64, binary, ubinary, int8 or uint8"),
    Text<&C::Output::int8_ranges>("output.int8_ranges",
                                  "the int8 and uint8 encodings' calibration ranges: a JSON file `[[min, ...], "
                                  "[max, ...]]`, a minimum and maximum a dimension (numpy's `ranges.tolist()`)")
        .Path()
        .Accepts("a path")
        .Note("the model manifest's `int8_ranges`; none: int8 and uint8 are refused"),
    Text<&C::Storage::path>("storage.path", "RocksDB result store directory").Path().Accepts("a path"),
    Bool<&C::Storage::sync>("storage.sync",
                            "fsync every write (survives OS crashes; a process crash loses nothing "
                            "either way)"),
    Text<&C::Http::listen>("http.listen", "`/metrics`, `/healthz`, `/readyz`, `/status`; empty disables")
        .Check(CheckListen, "host:port (port in [0, 65535]) or empty"),
    Integer<&C::Shutdown::drain_timeout>("shutdown.drain_timeout_s", 0, 86400,
                                         "on SIGTERM, the bound on the whole shutdown: queued jobs still unfinished "
                                         "after this are left for the next run, and the reply flush and the final "
                                         "commit get what is left of it (at least 1 s each)"),
    Integer<&C::HealthChecks::executor_stall>("health.executor_stall_s", 1, 86400,
                                              "`/healthz` fails once the started executor has not beaten for this "
                                              "long (a forward pass that hangs)"),
    Integer<&C::HealthChecks::startup_timeout>("health.startup_timeout_s", 0, 86400,
                                               "`/healthz` fails once start-up (model load, warm-up, memory plan, "
                                               "broker check) has taken longer than this, so that a start-up that "
                                               "hangs is restarted; 0: never"),
};

}  // namespace

const Key* FindKey(std::string_view name) {
  for (const Key& k : kKeys) {
    if (k.kind != Kind::kMap && name == k.name) return &k;
  }
  return nullptr;
}

namespace {

// The kMap key `name` belongs to ("kafka.consumer.fetch.max.bytes" to
// kafka.consumer), and the property it names.
}  // namespace

const Key* FindMap(std::string_view name, std::string* property) {
  for (const Key& k : kKeys) {
    const std::string_view prefix = k.name;
    if (k.kind == Kind::kMap && name.size() > prefix.size() + 1 && name.substr(0, prefix.size()) == prefix &&
        name[prefix.size()] == '.') {
      *property = std::string(name.substr(prefix.size() + 1));
      return &k;
    }
  }
  return nullptr;
}


std::string KnownKeys() {
  std::vector<std::string> keys;
  for (const Key& k : kKeys)
    keys.push_back(k.kind == Kind::kMap ? std::string(k.name) + ".<librdkafka property>" : std::string(k.name));
  return absl::StrJoin(keys, ", ");
}


std::span<const Key> ConfigKeyTable() { return kKeys; }

}  // namespace qinfer::app
