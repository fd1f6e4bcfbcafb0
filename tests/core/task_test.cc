// The task heads (core/task.h): what a classify or rerank result holds beside
// its logits, as transformers' text-classification pipeline and
// sentence-transformers' CrossEncoder compute it (the exact library parity
// is checked end to end in tests/python/test_tasks_serve.py).
#include "qinfer/core/task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

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

TEST(TaskHeadTest, SparseKeepsTheNonZeroWeightsByIndexAndChecksLikeEmbed) {
  TaskSpec sparse;
  sparse.task = task::kSparse;
  ASSERT_TRUE(sparse.Check(30522).ok());
  EXPECT_TRUE(IsTask("sparse"));
  EXPECT_TRUE(sparse.pools());
  EXPECT_FALSE(sparse.chunks()) << "windows of a SPLADE input are not its weights: no library defines chunk";
  Outcome o = Result({0.0f, 1.5f, 0.0f, 0.0f, 0.25f});
  FinishOutcome(sparse, o);
  EXPECT_EQ(o.sparse_indices, (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(o.output, (std::vector<float>{1.5f, 0.25f}));
  sparse.activation = activation::kSoftmax;
  EXPECT_FALSE(sparse.Check(8).ok());
  sparse.activation = activation::kNone;
  sparse.pairs = true;
  EXPECT_FALSE(sparse.Check(8).ok()) << "one text a job";
}

TEST(TaskHeadTest, TokenEmbedHasAVectorPerTokenOfTheJob) {
  TaskSpec spec;
  spec.task = task::kTokenEmbed;
  ASSERT_TRUE(spec.Check(8).ok());
  EXPECT_TRUE(spec.per_token());
  EXPECT_FALSE(spec.pools());
  Outcome o = Result({1, 2, 3, 4, 5, 6});
  o.input_length = 3;
  FinishOutcome(spec, o);
  EXPECT_EQ(o.output_rows, 3);
  EXPECT_EQ(o.output.size(), 6u);
}

TEST(TaskHeadTest, ZeroShotScoresTheJobsOwnLabelsAndKeepsNoLogits) {
  TaskSpec spec;
  spec.task = task::kZeroShot;
  spec.activation = activation::kSoftmax;
  ASSERT_TRUE(spec.Check(16).ok()) << spec.Check(16);
  Outcome o = Result({0.5f, 2.5f});
  o.candidate_labels = {"a cat", "a dog"};
  FinishOutcome(spec, o);
  ASSERT_TRUE(o.ok) << o.error;
  ASSERT_EQ(o.scores.size(), 2u);
  EXPECT_EQ(o.label, "a dog");
  EXPECT_NEAR(o.scores[0].score, 1.0 / (1.0 + std::exp(-2.0)), 1e-6);
  EXPECT_TRUE(o.output.empty()) << "the pipeline returns scores and labels, not logits";
  EXPECT_TRUE(o.candidate_labels.empty()) << "in flight only";
  // SigLIP: a sigmoid per label, each on its own.
  spec.activation = activation::kSigmoid;
  Outcome s = Result({0.0f, -1.0f});
  s.candidate_labels = {"x", "y"};
  FinishOutcome(spec, s);
  EXPECT_NEAR(s.scores[0].score, 0.5, 1e-6);
  EXPECT_NEAR(s.scores[1].score, 1.0 / (1.0 + std::exp(1.0)), 1e-6);
  // A job without labels keeps its features: an embedding.
  Outcome plain = Result({0.1f, 0.2f, 0.3f});
  FinishOutcome(spec, plain);
  EXPECT_EQ(plain.output.size(), 3u);
  EXPECT_TRUE(plain.scores.empty());
  // Logits that do not fit the labels are the model's error.
  Outcome bad = Result({1.0f});
  bad.candidate_labels = {"x", "y"};
  FinishOutcome(spec, bad);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.reason, reason::kModelError);
  spec.activation = activation::kNone;
  EXPECT_FALSE(spec.Check(16).ok()) << "zero_shot needs softmax or sigmoid";
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

// Tokens: one row of logits per span; the labels of a tagger.
class TokensHeadTest : public ::testing::Test {
 protected:
  static TaskSpec Tagger() {
    TaskSpec t;
    t.task = task::kTokens;
    t.activation = activation::kSoftmax;
    t.labels = {"O", "B-PER", "I-PER", "B-LOC", "I-LOC"};
    return t;
  }
  // A result of `text` whose tokens (special ones "" ) get `labels` (index
  // into Tagger().labels) with a logit of 5 against 0 for the others.
  static Outcome Tagged(std::string text, const std::vector<std::tuple<std::string, int, int, int>>& tokens) {
    Outcome o = Result({});
    o.text = std::move(text);
    for (const auto& [token, start, end, label] : tokens) {
      o.spans.push_back({start, end, token.empty(), token});
      for (int c = 0; c < 5; ++c) o.output.push_back(c == label ? 5.0f : 0.0f);
    }
    return o;
  }
};

TEST_F(TokensHeadTest, AdjacentTokensOfOneTypeAreOneEntityAndOIsLeftOut) {
  // [CLS] zoë lives in new york ##er [SEP]: B-PER O O B-LOC I-LOC I-LOC
  Outcome o = Tagged("Zoë lives in New Yorker",
                     {{"", 0, 0, 0}, {"zoë", 0, 3, 1}, {"lives", 4, 9, 0}, {"in", 10, 12, 0}, {"new", 13, 16, 3},
                      {"york", 17, 21, 4}, {"##er", 21, 23, 4}, {"", 0, 0, 0}});
  FinishOutcome(Tagger(), o);
  ASSERT_TRUE(o.ok) << o.error;
  const float top = float(std::exp(5.0) / (std::exp(5.0) + 4));
  ASSERT_TRUE(o.entities.has_value());
  ASSERT_EQ(o.entities->size(), 2u);
  EXPECT_EQ((*o.entities)[0], (Entity{"PER", "Zoë", 0, 3, top})) << "text is code points: ë is one";
  EXPECT_EQ((*o.entities)[1].label, "LOC");
  EXPECT_EQ((*o.entities)[1].text, "New Yorker");
  EXPECT_EQ((*o.entities)[1].start, 13);
  EXPECT_EQ((*o.entities)[1].end, 23);
  EXPECT_NEAR((*o.entities)[1].score, top, 1e-6);
  ASSERT_TRUE(o.tokens.has_value());
  ASSERT_EQ(o.tokens->size(), 6u) << "special tokens left out";
  EXPECT_EQ((*o.tokens)[5], (TokenLabel{"##er", 21, 23, "I-LOC", top}));
  EXPECT_TRUE(o.output.empty()) << "the raw logits are not kept";
  EXPECT_TRUE(o.spans.empty() && o.text.empty()) << "the in-flight text and spans are dropped";
}

TEST_F(TokensHeadTest, ABTagStartsANewEntityAndAnITagAfterAnotherTypeStartsOne) {
  // B-PER B-PER I-PER I-LOC O I-PER
  Outcome o = Tagged("a b c d e f", {{"a", 0, 1, 1}, {"b", 2, 3, 1}, {"c", 4, 5, 2}, {"d", 6, 7, 4}, {"e", 8, 9, 0},
                                     {"f", 10, 11, 2}});
  FinishOutcome(Tagger(), o);
  std::vector<std::tuple<std::string, std::string>> got;
  for (const Entity& e : *o.entities) got.emplace_back(e.label, e.text);
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, std::string>>{
                     {"PER", "a"}, {"PER", "b c"}, {"LOC", "d"}, {"PER", "f"}}));
}

TEST_F(TokensHeadTest, AnOutputThatDoesNotFitItsSpansIsAModelError) {
  Outcome o = Tagged("a", {{"a", 0, 1, 1}});
  o.output.pop_back();
  FinishOutcome(Tagger(), o);
  EXPECT_FALSE(o.ok);
  EXPECT_EQ(o.reason, reason::kModelError);
  EXPECT_NE(o.error.find("4 values for 1 tokens of 5 labels"), std::string::npos) << o.error;
}

TEST(MergeWindowEntitiesTest, OverlappingEntitiesKeepTheLongerOrTheBetterScored) {
  const std::vector<Entity> merged = MergeWindowEntities({
      {"PER", "New York", 10, 18, 0.9f},  // window 1
      {"LOC", "a", 0, 1, 0.8f},
      {"LOC", "York", 14, 18, 0.99f},     // window 2: inside the longer one, dropped
      {"PER", "Ann", 30, 33, 0.5f},
      {"ORG", "Ann", 30, 33, 0.7f},       // as long, better scored: kept
      {"LOC", "Zed", 40, 43, 0.6f},
  });
  std::vector<std::string> got;
  for (const Entity& e : merged) got.push_back(e.label + ":" + e.text);
  EXPECT_EQ(got, (std::vector<std::string>{"LOC:a", "PER:New York", "ORG:Ann", "LOC:Zed"}));
  EXPECT_TRUE(MergeWindowEntities({}).empty());
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
