#include "qinfer/pipeline/chunk_assembler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qinfer::pipeline {
namespace {

// Window `w` of `n` of job `id`, `length` tokens, from a 30-token input.
Job Window(const std::string& id, int w, int n, size_t length, int64_t offset = 5) {
  Job job;
  job.id = id;
  job.input_ids.assign(length, 1);
  job.window = w;
  job.windows = n;
  job.original_length = 30;
  job.origin = {"jobs", 0, offset, 1};
  job.reply_to = "replies";
  job.attempt = 1;
  if (w == 0) job.payload = "the message of " + id;
  return job;
}

Outcome Result(const Job& window, std::vector<float> output, int bucket) {
  Outcome o = OutcomeFor(window);
  o.ok = true;
  o.output = std::move(output);
  o.bucket = bucket;
  o.batch_size = 4;
  o.padded_length = bucket;
  o.device = "cpu";
  return o;
}

// token_embed: each window's token vectors but those it leaves out
// (keep_from: a later window's [CLS] and the overlap; keep_tail: an earlier
// window's [SEP]), in window order whatever order they arrive in.
TEST(ChunkAssemblerTest, TokenVectorsOfTheWindowsAreStitchedByPositionTheOverlapOnce) {
  ChunkAssembler chunks;
  // [CLS] a b c [SEP] | [CLS] c d [SEP]: one token of overlap (c); vectors of width 1, each its token's number.
  Job w0 = Window("doc", 0, 2, 5), w1 = Window("doc", 1, 2, 4);
  w0.keep_tail = 1;
  w1.keep_from = 2;
  Outcome r0 = Result(w0, {0, 1, 2, 3, 9}, 8), r1 = Result(w1, {0, 3, 4, 9}, 8);
  r0.output_rows = 5;
  r1.output_rows = 4;
  EXPECT_FALSE(chunks.Add(w1, r1));
  std::optional<Outcome> whole = chunks.Add(w0, r0);
  ASSERT_TRUE(whole && whole->ok);
  EXPECT_EQ(whole->output, (std::vector<float>{0, 1, 2, 3, 4, 9})) << "[CLS] a b c d [SEP]";
  EXPECT_EQ(whole->output_rows, 6);
  EXPECT_EQ(whole->payload, "the message of doc") << "kept for a too_long record of its size";
}

TEST(ChunkAssemblerTest, PoolsTheWindowsByLengthOnceAllAreIn) {
  ChunkAssembler chunks;
  const Job w0 = Window("doc", 0, 3, 16), w1 = Window("doc", 1, 3, 10), w2 = Window("doc", 2, 3, 4);
  // Out of order, and interleaved with another job's windows.
  EXPECT_FALSE(chunks.Add(w2, Result(w2, {4, 0}, 4)));
  EXPECT_FALSE(chunks.Add(Window("other", 0, 2, 16, 6), Result(Window("other", 0, 2, 16, 6), {1, 1}, 16)));
  EXPECT_FALSE(chunks.Add(w0, Result(w0, {1, 2}, 16)));
  EXPECT_EQ(chunks.pending(), 2u);
  std::optional<Outcome> whole = chunks.Add(w1, Result(w1, {2, 0}, 16));
  ASSERT_TRUE(whole);
  EXPECT_TRUE(whole->ok);
  EXPECT_EQ(whole->id, "doc");
  // (16 * 1 + 10 * 2 + 4 * 4) / 30 and (16 * 2) / 30
  ASSERT_EQ(whole->output.size(), 2u);
  EXPECT_FLOAT_EQ(whole->output[0], 52.0f / 30.0f);
  EXPECT_FLOAT_EQ(whole->output[1], 32.0f / 30.0f);
  EXPECT_EQ(whole->input_length, 30u);
  EXPECT_EQ(whole->policy, "chunk");
  EXPECT_EQ(whole->windows, 3);
  EXPECT_EQ(whole->origin, w0.origin) << "acked as its message";
  EXPECT_EQ(whole->reply_to, "replies");
  EXPECT_EQ(whole->attempt, 1);
  EXPECT_EQ(whole->padded_length, 36);
  EXPECT_EQ(chunks.pending(), 1u) << "the other job waits for its second window";
}

TEST(ChunkAssemblerTest, PooledOutputsOfANormalisedModelAreScaledBackToUnitLength) {
  // Two unit vectors 90 degrees apart: their mean is shorter than 1.
  const Job w0 = Window("doc", 0, 2, 20), w1 = Window("doc", 1, 2, 10);
  ChunkAssembler normalising(/*normalize=*/true);
  EXPECT_FALSE(normalising.Add(w0, Result(w0, {1, 0}, 32)));
  std::optional<Outcome> whole = normalising.Add(w1, Result(w1, {0, 1}, 16));
  ASSERT_TRUE(whole);
  // Length-weighted mean (20 * [1, 0] + 10 * [0, 1]) / 30 = [2/3, 1/3], then / its norm.
  const double norm = std::sqrt(4.0 / 9 + 1.0 / 9);
  EXPECT_FLOAT_EQ(whole->output[0], float(2.0 / 3 / norm));
  EXPECT_FLOAT_EQ(whole->output[1], float(1.0 / 3 / norm));

  ChunkAssembler plain;  // a model whose outputs are not normalised: the mean as it is
  EXPECT_FALSE(plain.Add(w0, Result(w0, {1, 0}, 32)));
  whole = plain.Add(w1, Result(w1, {0, 1}, 16));
  ASSERT_TRUE(whole);
  EXPECT_FLOAT_EQ(whole->output[0], 2.0f / 3);
  EXPECT_FLOAT_EQ(whole->output[1], 1.0f / 3);

  // A zero mean stays zero rather than dividing by zero.
  ChunkAssembler zero(/*normalize=*/true);
  EXPECT_FALSE(zero.Add(w0, Result(w0, {0, 0}, 32)));
  whole = zero.Add(w1, Result(w1, {0, 0}, 16));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->output, (std::vector<float>{0, 0}));
}

TEST(ChunkAssemblerTest, IdenticalWindowsPoolToTheWindowsOwnOutput) {
  ChunkAssembler chunks;
  std::optional<Outcome> whole;
  for (int w = 0; w < 4; ++w) {
    const Job job = Window("same", w, 4, 8);
    whole = chunks.Add(job, Result(job, {0.25f, -3.5f}, 8));
  }
  ASSERT_TRUE(whole);
  EXPECT_FLOAT_EQ(whole->output[0], 0.25f);
  EXPECT_FLOAT_EQ(whole->output[1], -3.5f);
}

TEST(ChunkAssemblerTest, AFailedWindowFailsTheWholeJobWithItsReasonAndThePayload) {
  ChunkAssembler chunks;
  const Job w0 = Window("doc", 0, 3, 16), w1 = Window("doc", 1, 3, 10), w2 = Window("doc", 2, 3, 4);
  EXPECT_FALSE(chunks.Add(w2, FailureFor(w2, reason::kModelError, "NaN at 3")));
  EXPECT_FALSE(chunks.Add(w1, FailureFor(w1, reason::kOom, "out of memory")));
  std::optional<Outcome> whole = chunks.Add(w0, Result(w0, {1, 2}, 16));
  ASSERT_TRUE(whole);
  EXPECT_FALSE(whole->ok);
  EXPECT_EQ(whole->reason, reason::kOom) << "the first failed window's reason";
  EXPECT_EQ(whole->error, "window 2 of 3: out of memory");
  EXPECT_EQ(whole->payload, "the message of doc") << "the whole message, for replay";
  EXPECT_EQ(whole->input_length, 30u);
  EXPECT_TRUE(whole->output.empty());
  EXPECT_EQ(chunks.pending(), 0u);
}

}  // namespace
}  // namespace qinfer::pipeline
