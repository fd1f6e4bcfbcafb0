// The task heads (core/task.h): what a classify or rerank result holds beside
// its logits, as transformers' text-classification pipeline and
// sentence-transformers' CrossEncoder compute it (the exact library parity
// is checked end to end in tests/python/test_tasks_serve.py).
#include "qinfer/core/task.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qinfer {
namespace {

Outcome Result(std::vector<float> logits) {
  Outcome o;
  o.id = "j";
  o.ok = true;
  o.output = std::move(logits);
  return o;
}

TaskSpec Classify(std::string activation, std::vector<std::string> labels) {
  TaskSpec t;
  t.task = task::kClassify;
  t.activation = std::move(activation);
  t.labels = std::move(labels);
  t.pairs = true;
  return t;
}

TEST(TaskHeadTest, ClassifyGivesSoftmaxScoresByScoreWithTheTopLabel) {
  Outcome o = Result({1.0f, 3.0f, 2.0f});
  FinishOutcome(Classify(activation::kSoftmax, {"NEG", "POS", "NEU"}), o);
  const double sum = std::exp(1.0) + std::exp(3.0) + std::exp(2.0);
  ASSERT_EQ(o.scores.size(), 3u);
  EXPECT_EQ(o.label, "POS");
  EXPECT_EQ(o.scores[0].label, "POS");
  EXPECT_EQ(o.scores[1].label, "NEU");
  EXPECT_EQ(o.scores[2].label, "NEG");
  EXPECT_NEAR(o.scores[0].score, std::exp(3.0) / sum, 1e-7);
  EXPECT_NEAR(o.scores[1].score, std::exp(2.0) / sum, 1e-7);
  EXPECT_NEAR(o.scores[2].score, std::exp(1.0) / sum, 1e-7);
  EXPECT_EQ(o.output, (std::vector<float>{1.0f, 3.0f, 2.0f})) << "the logits stay the output";
  EXPECT_FALSE(o.score.has_value());
}

TEST(TaskHeadTest, SoftmaxIsStableForLargeLogitsAndTiesKeepLabelOrder) {
  Outcome o = Result({1000.0f, 1000.0f, -1000.0f});
  FinishOutcome(Classify(activation::kSoftmax, {"a", "b", "c"}), o);
  EXPECT_EQ(o.label, "a");
  EXPECT_EQ(o.scores[1].label, "b");
  EXPECT_FLOAT_EQ(o.scores[0].score, 0.5f);
  EXPECT_FLOAT_EQ(o.scores[2].score, 0.0f);
}

TEST(TaskHeadTest, AMultiLabelClassifierScoresEachLabelWithItsOwnSigmoid) {
  Outcome o = Result({0.0f, 2.0f, -2.0f});
  FinishOutcome(Classify(activation::kSigmoid, {"toxic", "insult", "threat"}), o);
  EXPECT_EQ(o.label, "insult");
  EXPECT_NEAR(o.scores[0].score, 1 / (1 + std::exp(-2.0)), 1e-7);
  EXPECT_NEAR(o.scores[1].score, 0.5, 1e-7);
  EXPECT_NEAR(o.scores[2].score, 1 / (1 + std::exp(2.0)), 1e-7);
}

TEST(TaskHeadTest, RerankScoresTheLogitWithASigmoid) {
  TaskSpec t;
  t.task = task::kRerank;
  t.activation = activation::kSigmoid;
  Outcome o = Result({-1.5f});
  FinishOutcome(t, o);
  ASSERT_TRUE(o.score.has_value());
  EXPECT_NEAR(*o.score, 1 / (1 + std::exp(1.5)), 1e-7);
  EXPECT_TRUE(o.label.empty());
  EXPECT_TRUE(o.scores.empty());
}

TEST(TaskHeadTest, EmbedAndFailuresGetNothing) {
  Outcome embedded = Result({0.6f, 0.8f});
  FinishOutcome(TaskSpec{}, embedded);
  EXPECT_EQ(embedded, Result({0.6f, 0.8f}));
  Outcome failed = Result({1.0f, 2.0f});
  failed.ok = false;
  FinishOutcome(Classify(activation::kSoftmax, {"a", "b"}), failed);
  EXPECT_TRUE(failed.scores.empty());
}

TEST(TaskSpecTest, ChecksTheCombinationNamingTheField) {
  EXPECT_TRUE(TaskSpec{}.Check(384).ok());
  EXPECT_TRUE(Classify(activation::kSoftmax, {"a", "b"}).Check(2).ok());
  auto error = [](const TaskSpec& t, int dim) { return std::string(t.Check(dim).message()); };
  EXPECT_NE(error(Classify(activation::kSoftmax, {"a", "b"}), 3).find("labels: 2 labels for 3 outputs"),
            std::string::npos);
  EXPECT_NE(error(Classify(activation::kSoftmax, {"a"}), 1).find("labels: task classify needs 2 or more labels"),
            std::string::npos);
  EXPECT_NE(error(Classify(activation::kNone, {"a", "b"}), 2).find("activation 'none' does not fit task classify"),
            std::string::npos);
  TaskSpec rerank;
  rerank.task = task::kRerank;
  rerank.activation = activation::kSigmoid;
  EXPECT_TRUE(rerank.Check(1).ok());
  EXPECT_NE(error(rerank, 2).find("dim: task rerank has one output"), std::string::npos);
  TaskSpec embed_pairs;
  embed_pairs.pairs = true;
  EXPECT_NE(error(embed_pairs, 8).find("pairs: task embed takes one text per job"), std::string::npos);
  TaskSpec unknown;
  unknown.task = "summarize";
  EXPECT_NE(error(unknown, 8).find("task 'summarize' is not one of embed, classify, rerank, tokens"),
            std::string::npos);
}

}  // namespace
}  // namespace qinfer
