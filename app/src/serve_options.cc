#include "serve_options.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace qinfer::app {

consumer::TopicCheck TopicCheckFrom(const Config& config) {
  consumer::TopicCheck topics;
  topics.brokers = config.kafka.brokers;
  topics.properties = config.kafka.producer;
  topics.topics = {config.kafka.jobs_topic, config.kafka.reply_topic, config.kafka.dead_letter_topic};
  topics.create = config.kafka.create_topics;
  topics.partitions = config.kafka.topic_partitions;
  topics.timeout = config.kafka.startup_wait;
  return topics;
}

int TokenizerThreads(const Config& config, int cores) {
  if (config.tokenizer.threads > 0) return config.tokenizer.threads;
  const int model = config.model.threads > 0 ? config.model.threads : cores;
  return std::max(1, cores - model);
}

absl::StatusOr<OutputSettings> OutputSettingsFrom(const Config& config, const executor::ModelManifest& manifest) {
  OutputSettings output;
  output.encoding = config.output.encoding;
  output.int8_ranges = manifest.int8_ranges;
  if (!config.output.int8_ranges.empty()) {
    std::ifstream in(config.output.int8_ranges);
    if (!in) return absl::InvalidArgumentError("output.int8_ranges: cannot read " + config.output.int8_ranges);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto ranges = QuantizationRangesFromJson(text, "output.int8_ranges " + config.output.int8_ranges);
    if (!ranges.ok()) return ranges.status();
    output.int8_ranges = *std::move(ranges);
  }
  if (output.int8_ranges && manifest.dim > 0 && output.int8_ranges->dim() != size_t(manifest.dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        config.output.int8_ranges.empty() ? "the model manifest's int8_ranges" : "output.int8_ranges", " have ",
        output.int8_ranges->dim(), " dimensions; the model's embedding has ", manifest.dim));
  }
  const bool token_base64 = manifest.task.task == task::kTokenEmbed && output.encoding == encoding::kBase64;
  if (output.encoding != encoding::kFloat && !manifest.task.is_embed() && !token_base64) {
    return absl::InvalidArgumentError("output.encoding=" + output.encoding + ": this model's task is " +
                                      manifest.task.task + "; the compact encodings are for embeddings");
  }
  if (NeedsRanges(output.encoding) && !output.int8_ranges) {
    return absl::InvalidArgumentError("output.encoding=" + output.encoding +
                                      " needs calibration ranges: set output.int8_ranges (or export the model "
                                      "with int8_ranges); ranges taken from a batch would make a result depend "
                                      "on its batch");
  }
  return output;
}

consumer::SourceConfig SourceConfigFrom(const Config& config, const executor::ModelManifest& manifest,
                                        const OutputSettings& output, int max_tokens,
                                        std::span<const tokenizer::Tokenizer* const> tokenizers,
                                        const image::ImageProcessor* images) {
  consumer::SourceConfig source;
  source.brokers = config.kafka.brokers;
  source.group_id = config.kafka.group_id;
  source.topics = {config.kafka.jobs_topic};
  source.properties = config.kafka.consumer;
  consumer::DecoderLimits& limits = source.limits;
  limits.vocab_size = manifest.vocab_size;
  limits.max_tokens = size_t(manifest.TextTokensWithin(max_tokens));
  limits.max_message_bytes = config.limits.max_message_bytes;
  limits.max_depth = config.limits.max_depth;
  limits.max_meta_bytes = config.limits.max_meta_bytes;
  limits.too_long_policy = config.admission.too_long;
  limits.chunk_overlap = size_t(config.admission.chunk_overlap);
  limits.max_chunks = size_t(config.admission.max_chunks);
  limits.chunk_allowed = manifest.task.chunks();
  limits.task = manifest.task.task;
  limits.pairs = manifest.task.pairs;
  limits.type_ids = manifest.task.type_ids;
  limits.spans = manifest.task.task == task::kTokens;
  limits.long_lane_max_tokens = size_t(config.long_lane.max_tokens);
  limits.tokenizer = tokenizers.empty() ? nullptr : tokenizers.front();
  limits.max_text_bytes = config.limits.max_text_bytes;
  limits.max_chunk_text_bytes = config.limits.max_chunk_text_bytes;
  limits.end_token_id = manifest.end_token_id;
  limits.dim = size_t(std::max(0, manifest.dim));
  limits.prompts = manifest.prompts;
  limits.default_prompt_name = manifest.default_prompt_name;
  if (!manifest.include_prompt) limits.prompt_lengths = manifest.prompt_lengths;
  limits.int8_ranges = output.int8_ranges.has_value();
  limits.stitch_rows = manifest.task.task == task::kTokenEmbed;
  limits.takes_tokens = manifest.takes_tokens;
  if (manifest.image && images != nullptr) {
    limits.image_processor = images;
    limits.image_length = manifest.image->length;
  }
  limits.max_image_bytes = config.limits.max_image_bytes;
  limits.max_image_pixels = int64_t(config.limits.max_image_pixels);
  for (const std::string& root : config.inputs.image_roots) {
    std::error_code ec;
    limits.image_roots.push_back(std::filesystem::weakly_canonical(root, ec).string());
  }
  limits.image_url_timeout_seconds = config.inputs.url_timeout;
  limits.image_url_max_redirects = config.inputs.url_max_redirects;
  if (manifest.zero_shot) limits.hypothesis_template = manifest.zero_shot->hypothesis_template;
  for (const tokenizer::Tokenizer* handle : tokenizers) {
    source.decode_workers.push_back(limits);
    source.decode_workers.back().tokenizer = handle;
  }
  // The messages being decoded are bounded as queued jobs are: as many as
  // the queue may hold, and their bytes within its byte bound.
  source.decode_pool.max_messages = std::max<size_t>(1, config.scheduler.max_queued_jobs);
  source.decode_pool.max_bytes = std::max<size_t>(1, config.scheduler.max_queued_bytes);
  return source;
}

storage::RocksDbStoreOptions StoreOptionsFrom(const Config& config) {
  storage::RocksDbStoreOptions options;
  options.sync = config.storage.sync;
  return options;
}

storage::PublisherConfig PublisherConfigFrom(const Config& config) {
  storage::PublisherConfig publisher;
  publisher.brokers = config.kafka.brokers;
  publisher.default_reply_topic = config.kafka.reply_topic;
  publisher.dead_letter_topic = config.kafka.dead_letter_topic;
  publisher.properties = config.kafka.producer;
  publisher.close_timeout = std::chrono::milliseconds(1000);
  return publisher;
}

DerivedPolicy PolicyFrom(const Config& config, const std::vector<int>& bounds, const std::optional<MemoryPlan>& plan) {
  DerivedPolicy derived;
  scheduler::BatchPolicy& policy = derived.policy;
  policy.bucket_bounds = bounds;
  policy.caps =
      scheduler::CapsFromTokenBudget(bounds, config.scheduler.tokens_per_batch, config.scheduler.max_batch_size);
  if (plan) {
    for (size_t i = 0; i < policy.caps.size(); ++i) {
      const PlanEntry& e = plan->entries[i];
      policy.caps[i] = std::clamp(e.batch_size, 1, config.scheduler.max_batch_size);
      if (!e.fits()) derived.unfit.insert(e.bound);
    }
  }
  if (config.long_lane.max_tokens > 0) {
    // The long lane: one bucket above max_tokens whose jobs run one at a
    // time on the fallback device.
    policy.bucket_bounds.push_back(config.long_lane.max_tokens);
    policy.caps.push_back(1);
    derived.unfit.insert(config.long_lane.max_tokens);
  }
  policy.max_batch_delay = config.scheduler.max_batch_delay;
  policy.formation = config.scheduler.formation;
  policy.max_padding = config.scheduler.max_padding;
  policy.extra_padding_tokens = size_t(config.scheduler.extra_padding_tokens);
  policy.max_queued_jobs =
      std::max(config.scheduler.max_queued_jobs, size_t(*std::max_element(policy.caps.begin(), policy.caps.end())));
  policy.max_queued_tokens = config.scheduler.max_queued_tokens;
  policy.max_queued_bytes = config.scheduler.max_queued_bytes;
  policy.max_job_bytes = 2 * config.limits.max_message_bytes;
  return derived;
}

pipeline::LoopOptions LoopOptionsFrom(const Config& config, const executor::ModelManifest& manifest,
                                      const OutputSettings& output) {
  pipeline::LoopOptions options;
  options.drain_timeout = config.shutdown.drain_timeout;
  options.max_attempts = config.recovery.max_attempts;
  options.normalize_pooled = manifest.normalized;
  options.task = manifest.task;
  options.record_queue = 2;
  options.encoding = output.encoding;
  options.max_result_bytes = config.limits.max_result_bytes;
  options.int8_ranges = output.int8_ranges;
  return options;
}

HttpOptions HttpOptionsFrom(const Config& config) {
  return HttpOptions{.listen = config.http.listen, .executor_stall = config.health.executor_stall};
}

}  // namespace qinfer::app
