// `serve`'s configuration, translated into each module's options: pure
// functions of a Config (and of what start-up learnt: the model's manifest,
// its bucket bounds, its memory plan). They open nothing, reach no broker
// and load no model, so tests/app/serve_options_test.cc checks them alone.
//
// This file belongs to the target qinfer_serve_options, which links no
// torch: it names the executor's value types (ModelManifest) from their
// headers only. The runner's own options (executor::RunnerOptions) need the
// executor's size parser and are built in plan.cc (RunnerOptionsFrom).
#pragma once

#include <span>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config.h"
#include "qinfer/consumer/kafka_job_source.h"
#include "qinfer/consumer/kafka_topics.h"
#include "qinfer/core/memory_plan.h"
#include "qinfer/executor/model_manifest.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/scheduler/policy.h"
#include "qinfer/storage/kafka_outcome_publisher.h"
#include "qinfer/storage/rocksdb_outcome_store.h"

namespace qinfer::tokenizer {
class Tokenizer;
}

namespace qinfer::app {

// Every topic the configuration names (jobs, reply, dead letter), for the
// start-up check: a missing one would fail each delivery to it.
consumer::TopicCheck TopicCheckFrom(const Config& config);

// The tokenizer pool's workers: tokenizer.threads, or (0) the cores that
// model.threads leaves of `cores`, at least 1.
int TokenizerThreads(const Config& config, int cores);

// How results' outputs are written (output.encoding) and the int8 / uint8
// encodings' calibration ranges (output.int8_ranges, else the manifest's).
struct OutputSettings {
  std::string encoding = "float";
  std::optional<QuantizationRanges> int8_ranges;
};

// The output settings, checked against the model: a compact encoding only
// for an embed model, int8 / uint8 only with ranges, ranges as wide as the
// embedding. An error names the key (or the manifest's field).
absl::StatusOr<OutputSettings> OutputSettingsFrom(const Config& config, const executor::ModelManifest& manifest);

// The consumer: brokers, group, the jobs topic, librdkafka properties, and
// the bounds on each message against the model. `max_tokens` is the longest
// bucket bound; `tokenizers` holds one handle per worker of the tokenizer
// pool (not owned; each may be null: the model takes input_ids only), and
// they must outlive the consumer. No handle: decoded on the consumer thread.
// `images`: the model's image processor (not owned, outlives the consumer;
// null: the model takes no images); image jobs are bounded by limits.* and
// read as inputs.* says (its roots made canonical here). A two-tower
// model's texts stay within its text tower's max_text_tokens.
consumer::SourceConfig SourceConfigFrom(const Config& config, const executor::ModelManifest& manifest,
                                        const OutputSettings& output, int max_tokens,
                                        std::span<const tokenizer::Tokenizer* const> tokenizers,
                                        const image::ImageProcessor* images = nullptr);

storage::RocksDbStoreOptions StoreOptionsFrom(const Config& config);

// The reply and dead-letter producer. Its close timeout is short (1 s):
// shutdown flushes within shutdown.drain_timeout_s before the publisher
// goes, and what is still in flight then is cancelled.
storage::PublisherConfig PublisherConfigFrom(const Config& config);

// The scheduler's policy, and the buckets whose jobs run alone on the
// fallback device (unfit: not even one job fits the memory plan; the long
// lane).
struct DerivedPolicy {
  scheduler::BatchPolicy policy;
  std::set<int> unfit;
};

// Caps from the memory plan where there is one (each entry's batch size,
// within [1, scheduler.max_batch_size]), otherwise from
// scheduler.tokens_per_batch; a long lane (long_lane.max_tokens > 0) adds
// one bucket above `bounds` with cap 1. The job bound is raised to the
// largest cap, so that a full batch can always form, and the byte bound of
// one job is twice limits.max_message_bytes (a payload and, parsed, about as
// much again). REQUIRES: `bounds` is not empty; a plan has one entry per
// bound.
DerivedPolicy PolicyFrom(const Config& config, const std::vector<int>& bounds, const std::optional<MemoryPlan>& plan);

// The executor loop: the drain bound, crash isolation, chunk pooling, and a
// recording thread of its own (record_queue 2), so that the model runs while
// the previous batch is written. before_batch is left empty.
pipeline::LoopOptions LoopOptionsFrom(const Config& config, const executor::ModelManifest& manifest,
                                      const OutputSettings& output);

// What the HTTP front end of `serve` needs: the address it listens on ("":
// none; ParseListenAddress reads it) and the stall bound /healthz applies.
struct HttpOptions {
  std::string listen;
  std::chrono::nanoseconds executor_stall{0};
};
HttpOptions HttpOptionsFrom(const Config& config);

}  // namespace qinfer::app
