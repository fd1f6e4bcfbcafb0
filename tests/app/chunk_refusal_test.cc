// Policy chunk is refused for classify and rerank whatever else their
// manifest says (issue "green on any machine", item 5): a classifier of one
// text (`pairs: false`, two inputs), one of pairs, a cross-encoder with and
// without token types. Each manifest is read from its file as the service
// reads it, and refused at every door: the configuration
// (admission.too_long), `replay --policy chunk`, and a job's own `policy`
// through the decoder the service builds from it. Embed and tokens take it.
#include <gtest/gtest.h>

#include <string>

#include "admission_checks.h"
#include "qinfer/consumer/job_decoder.h"
#include "serve_options.h"
#include "util/manifest_file.h"

namespace qinfer::app {
namespace {

constexpr int kMaxTokens = 16;

std::string ManifestJson(const std::string& fields) {
  return R"({"vocab_size": 100, "max_tokens": 16, "max_positions": 64, )" + fields + "}";
}

// A job of `length` ids that asks for policy chunk itself (a replay's
// override).
std::string LongChunkJob(size_t length) {
  std::string ids;
  for (size_t i = 0; i < length; ++i) ids += (i ? "," : "") + std::to_string(1 + i % 50);
  return R"({"id":"long","input_ids":[)" + ids + R"(],"policy":"chunk"})";
}

struct Case {
  const char* name;
  std::string fields;
  bool chunks;
};

TEST(ChunkRefusalTest, ClassifyAndRerankRefuseChunkWhateverTheirManifestSaysEmbedAndTokensTakeIt) {
  const Case cases[] = {
      {"classifier of one text (pairs false)",
       R"("task": "classify", "output": "logits", "dim": 2, "labels": ["NEG", "POS"], "pairs": false,
          "inputs": ["input_ids", "attention_mask"], "normalized": true)",
       false},
      {"classifier of pairs", R"("task": "classify", "output": "logits", "dim": 2, "labels": ["NEG", "POS"],
          "inputs": ["input_ids", "attention_mask", "token_type_ids"])",
       false},
      {"multi-label classifier", R"("task": "classify", "output": "logits", "dim": 3, "labels": ["a", "b", "c"],
          "activation": "sigmoid", "pairs": false, "inputs": ["input_ids", "attention_mask"])",
       false},
      {"cross-encoder without token types", R"("task": "rerank", "output": "logits", "dim": 1, "pairs": true)", false},
      {"cross-encoder with token types", R"("task": "rerank", "output": "logits", "dim": 1, "pairs": true,
          "inputs": ["input_ids", "attention_mask", "token_type_ids"])",
       false},
      {"embedder", R"("task": "embed", "dim": 8, "normalized": true)", true},
      {"tagger", R"("task": "tokens", "output": "token_logits", "dim": 2, "labels": ["O", "B-PER"])", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::ManifestFile dir(ManifestJson(c.fields));
    absl::StatusOr<executor::ModelManifest> manifest = executor::ModelManifest::Load(dir.path());
    ASSERT_TRUE(manifest.ok()) << manifest.status();

    Config config;
    config.model.path = (dir.dir() / "model.pt").string();
    config.admission.too_long = "chunk";
    const absl::Status admission = CheckAdmission(config, *manifest, kMaxTokens);
    const absl::Status replay = CheckReplayPolicy(config, "chunk");
    config.admission.too_long = "reject";
    const consumer::DecoderLimits limits = SourceConfigFrom(config, *manifest, {}, kMaxTokens, {}).limits;
    const std::string job = LongChunkJob(40);
    const consumer::Decoded decoded = consumer::DecodeJob({.key = {}, .value = job, .origin = {"jobs", 0, 7, 1}}, limits);
    if (c.chunks) {
      EXPECT_TRUE(admission.ok()) << admission;
      EXPECT_TRUE(replay.ok()) << replay;
      EXPECT_TRUE(limits.chunk_allowed);
      // (A tagger takes text only: its results are offsets into the text.)
      if (manifest->task.is_embed()) {
        EXPECT_TRUE(std::holds_alternative<std::vector<Job>>(decoded)) << "windows of the chunked input";
      }
      continue;
    }
    EXPECT_FALSE(limits.chunk_allowed);
    ASSERT_FALSE(admission.ok());
    EXPECT_NE(admission.message().find("admission.too_long=chunk"), std::string::npos) << admission;
    EXPECT_NE(admission.message().find(manifest->task.task), std::string::npos) << admission;
    ASSERT_FALSE(replay.ok());
    EXPECT_NE(replay.message().find("--policy chunk"), std::string::npos) << replay;
    ASSERT_TRUE(std::holds_alternative<Outcome>(decoded)) << "a record, not windows";
    const Outcome& failure = std::get<Outcome>(decoded);
    EXPECT_EQ(failure.reason, reason::kTooLong);
    EXPECT_NE(failure.error.find("policy chunk is not defined for task " + manifest->task.task), std::string::npos)
        << failure.error;
  }
}

}  // namespace
}  // namespace qinfer::app
