// Configuration: a YAML file, overridden by environment variables
// (QINFER_<SECTION>_<KEY>, e.g. QINFER_KAFKA_BROKERS; librdkafka properties
// as QINFER_KAFKA_CONSUMER_<PROPERTY>, dots as underscores) and then by
// `--set section.key=value` flags. Unknown keys and bad values fail start-up
// with a message that names the key and the fix. Every key is declared once,
// in config.cc's key table, which drives parsing, the dump, the defaults
// file and docs/guide/configuration.md's table.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "qinfer/scheduler/policy.h"

namespace qinfer::app {

struct Config {
  struct Model {
    std::string path;            // TorchScript model.pt (required)
    std::string manifest;        // default: manifest.json beside path
    std::string device = "cpu";  // cpu | cuda:N | cpu-budget:<size>
    // Where single jobs that do not fit the primary device run: auto (cpu
    // unless the primary device is plain cpu), cpu, or none.
    std::string fallback_device = "auto";
    std::string autocast;  // "" (float32) | bf16 | fp16
    // With autocast: the start-up precision probe's floor on the cosine of a
    // row's autocast output to its float32 output, in (0, 1].
    double min_cosine = 0.999;
    // With autocast, for classify, rerank and tokens: the probe's bound on
    // the largest difference of an activated score (a probability) from
    // float32's, in [0, 1]; a changed top label is refused whatever it says.
    double max_score_diff = 0.01;
    int threads = 0;       // intra-op threads; 0: libtorch default
    // Which of MKL's kernels run: isa (by the CPU's instruction sets, on any
    // vendor) or vendor (MKL's own choice: generic kernels off Intel).
    std::string mkl_dispatch = "isa";
    // Shared libraries registering TorchScript custom ops the model calls,
    // loaded before the model.
    std::vector<std::string> op_libraries;
  } model;
  struct Memory {
    bool plan = true;                 // calibrate/load a memory plan when the device has a budget
    double margin = 0.10;             // plan within budget * (1 - margin)
    double cuda_memory_fraction = 0;  // [0, 1]: cap the CUDA allocator (emulate a smaller card); 0: no cap
    std::string cuda_budget;          // plan within this on CUDA (e.g. 20GiB); "" = the (capped) card
    // The CPU allocator's bound on the free large blocks it keeps for reuse
    // (executor/cpu_block_cache.h); "0": none kept.
    std::string cpu_block_cache = "512MiB";
  } memory;
  struct Kafka {
    std::string brokers = "127.0.0.1:9092";
    std::string group_id = "qinfer";
    std::string jobs_topic = "jobs";
    std::string reply_topic;                      // results without reply_to; "" = none
    std::string dead_letter_topic;                // failure records; "" = none
    std::map<std::string, std::string> consumer;  // librdkafka, verbatim
    std::map<std::string, std::string> producer;  // librdkafka, verbatim
    // The topics above must exist at start-up; true creates missing ones
    // with topic_partitions partitions instead of refusing to start.
    bool create_topics = false;
    int topic_partitions = 1;
    // How long start-up waits for a broker to answer before it gives up
    // (exit 75, a transient failure).
    std::chrono::seconds startup_wait{15};
  } kafka;
  // Bounds on every job message, checked before it is parsed or queued; a
  // violation is an `invalid` failure record.
  struct Limits {
    size_t max_message_bytes = size_t{1} << 20;
    int max_depth = 32;
    size_t max_meta_bytes = size_t{64} << 10;
    size_t max_text_bytes = size_t{256} << 10;
    size_t max_chunk_text_bytes = size_t{1} << 20;
    // A result record larger than this (a token_embed result of a long
    // input) is a `too_long` failure record instead.
    size_t max_result_bytes = size_t{16} << 20;
    // An image job's encoded bytes and its pixels (read from its header,
    // before it is decoded): a larger one is `too_large`. The pixel bound is
    // Pillow's, where it raises DecompressionBombError.
    size_t max_image_bytes = size_t{20} << 20;
    long long max_image_pixels = 178956970;
  } limits;
  // Where image jobs' image_url may point: file:// under one of image_roots
  // (none: file:// refused); http(s):// within url_timeout seconds, at most
  // url_max_redirects redirects.
  struct Inputs {
    std::vector<std::string> image_roots;
    double url_timeout = 10;
    int url_max_redirects = 3;
  } inputs;
  // Inputs longer than scheduler.max_tokens (a job's `policy` overrides
  // too_long): reject (a `too_long` record), truncate, chunk (windows
  // overlapping by chunk_overlap tokens, at most max_chunks, pooled into one
  // result) or long_lane (see LongLane).
  struct Admission {
    std::string too_long = "reject";
    int chunk_overlap = 0;
    int max_chunks = 64;
  } admission;
  // Over-long inputs up to max_tokens (0: no long lane) run whole, alone, on
  // the fallback device, when the model's positions allow that length.
  struct LongLane {
    int max_tokens = 0;
  } long_lane;
  struct Recovery {
    // Attempts a job may take without an outcome (the process died while it
    // ran) before it gets a `crash` record instead of running again.
    int max_attempts = 3;
  } recovery;
  struct Scheduler {
    std::vector<int> bucket_bounds;  // default: powers of two to max_tokens
    int max_tokens = 0;              // default: the model manifest's
    int tokens_per_batch = 8192;     // cap = tokens_per_batch / bucket bound
    int max_batch_size = 64;
    std::chrono::milliseconds max_batch_delay{50};
    scheduler::Formation formation = scheduler::Formation::kLength;
    double max_padding = 0.08;
    int extra_padding_tokens = 32;
    size_t max_queued_jobs = 20000;
    size_t max_queued_tokens = 2000000;
    size_t max_queued_bytes = size_t{256} << 20;  // ids, payloads and meta held
  } scheduler;
  struct Tokenizer {
    // Workers of the tokenizer pool, which decodes (and tokenizes) the jobs
    // topic's messages off the consumer thread; 0: the cores the model's
    // intra-op threads leave, at least 1 (TokenizerThreads).
    int threads = 0;
  } tokenizer;
  // How a result's `output` is written when its job names no `encoding`
  // (qinfer/core/output_encoding.h), and the int8 / uint8 encodings'
  // calibration ranges: a JSON file [[min, ...], [max, ...]] ("" = the
  // model manifest's int8_ranges, if any).
  struct Output {
    std::string encoding = "float";
    std::string int8_ranges;
  } output;
  struct Storage {
    std::string path = "run/results";
    bool sync = false;
  } storage;
  struct Http {
    std::string listen = "127.0.0.1:9400";  // "" disables
  } http;
  struct Shutdown {
    std::chrono::seconds drain_timeout{30};
  } shutdown;
  struct HealthChecks {
    // /healthz fails once the started executor has not beaten for this long
    // (stuck in a forward pass, or blocked).
    std::chrono::seconds executor_stall{120};
    // /healthz fails once start-up (model load, warm-up, memory plan, the
    // broker check) has taken longer than this; 0: never.
    std::chrono::seconds startup_timeout{900};
  } health;
};

// Loads `path` ("" = defaults only), then environment, then `overrides`
// ("section.key=value"). Errors name the key and say how to fix it. Relative
// paths in the file (model.path, model.manifest, model.op_libraries,
// storage.path) resolve against the file's directory; those from the
// environment or --set against the current directory.
//
// `use`: serve and plan run a model, so model.path must be set; the commands
// that only talk to Kafka or a result store (ConfigUse::kClient: submit,
// replay, collect, results, status) leave it unset.
enum class ConfigUse { kServe, kClient };
absl::StatusOr<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides,
                                  ConfigUse use = ConfigUse::kServe);

// http.listen's host:port. Port 0: the kernel's pick.
struct ListenAddress {
  std::string host;
  int port = 0;
};
// The whole port must be a decimal number in [0, 65535] ("notaport" and
// "94OO" are refused, not read as 0 and 94); errors name http.listen.
absl::StatusOr<ListenAddress> ParseListenAddress(const std::string& text);

// A size as executor::ParseBytes reads it ("512MiB"), or "0" (none): the
// form of memory.cpu_block_cache.
absl::StatusOr<int64_t> ParseSizeOrZero(const std::string& text);

// Every scalar key LoadConfig accepts ("section.key"), besides the
// pass-through kafka.consumer.* and kafka.producer.* properties.
std::vector<std::string> ConfigKeys();
// The sections of pass-through properties: kafka.consumer, kafka.producer.
std::vector<std::string> ConfigPropertySections();

// The effective configuration as YAML (`serve --print-config`); LoadConfig
// reads it back to the same configuration. Secret librdkafka properties
// (passwords, keys) are shown as <redacted>.
std::string DumpConfig(const Config& config);

// A complete configuration file with every key at its default, each with a
// comment that says what it does (`qinfer config --print-defaults`). Floats
// are printed in their shortest exact form. The file loads back as printed:
// a required key without a default (model.path) is marked REQUIRED and holds
// kModelPathPlaceholder, which start-up refuses by name until it is replaced.
std::string DefaultConfigFile();
inline constexpr const char* kModelPathPlaceholder = "/REQUIRED/path/to/model.pt";

// The configuration table of docs/guide/configuration.md (markdown: key, accepts, default, meaning),
// one row per key, read off the same key table as LoadConfig and the dump
// (`qinfer config --print-table`).
std::string ConfigTableMarkdown();

}  // namespace qinfer::app
