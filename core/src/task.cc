#include "qinfer/core/task.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>
#include <utility>

namespace qinfer {

bool IsTask(std::string_view name) {
  return name == task::kEmbed || name == task::kClassify || name == task::kRerank || name == task::kTokens ||
         name == task::kSparse || name == task::kTokenEmbed || name == task::kZeroShot;
}

absl::Status TaskSpec::Check(int dim) const {
  if (!IsTask(task)) {
    return absl::InvalidArgumentError("task '" + task +
                                      "' is not one of embed, classify, rerank, tokens, sparse, token_embed, zero_shot");
  }
  const bool labelled = task == task::kClassify || task == task::kTokens;
  if (labelled && labels.size() < (task == task::kClassify ? 2u : 1u)) {
    return absl::InvalidArgumentError("labels: task " + task + " needs " +
                                      (task == task::kClassify ? "2 or more labels" : "its labels") +
                                      " (the checkpoint's id2label, in order)");
  }
  if (!labelled && !labels.empty()) {
    return absl::InvalidArgumentError("labels: task " + task + " has no labels");
  }
  if (labelled && dim > 0 && size_t(dim) != labels.size()) {
    return absl::InvalidArgumentError("labels: " + std::to_string(labels.size()) + " labels for " +
                                      std::to_string(dim) + " outputs (dim)");
  }
  if (task == task::kRerank && dim > 0 && dim != 1) {
    return absl::InvalidArgumentError("dim: task rerank has one output (a cross-encoder's logit), not " +
                                      std::to_string(dim));
  }
  const std::string& a = activation;
  const bool ok_activation = task == task::kZeroShot  ? a == activation::kSoftmax || a == activation::kSigmoid
                             : pools() || task == task::kTokenEmbed ? a == activation::kNone
                             : task == task::kRerank ? a == activation::kSigmoid
                             : task == task::kTokens ? a == activation::kSoftmax
                                                     : a == activation::kSoftmax || a == activation::kSigmoid;
  if (!ok_activation) {
    return absl::InvalidArgumentError(
        "activation '" + a + "' does not fit task " + task + " (embed, sparse and token_embed: none; classify and " +
        "zero_shot: softmax or sigmoid; rerank: sigmoid; tokens: softmax)");
  }
  if (pairs && task != task::kClassify && task != task::kRerank) {
    return absl::InvalidArgumentError("pairs: task " + task + " takes one text per job, not pairs");
  }
  if (type_ids && !pairs) {
    return absl::InvalidArgumentError("inputs: token_type_ids is an input only of a model that takes pairs");
  }
  return absl::OkStatus();
}

namespace {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// `scores` ({label, score} for each of `labels` by the activation `how`, by score descending, ties
// in label order) and `label` (the first) from `o.output`'s logits.
void Score(const std::string& how, const std::vector<std::string>& labels, Outcome& o);


// (B or I, the tag) of a label, as the pipeline's get_tag reads it: "B-PER"
// -> (B, PER), "I-PER" -> (I, PER), anything else -> (I, itself).
std::pair<char, std::string_view> Tag(std::string_view label) {
  if (label.size() >= 2 && (label[0] == 'B' || label[0] == 'I') && label[1] == '-') {
    return {label[0], label.substr(2)};
  }
  return {'I', label};
}

// `text`[start, end) in code points, as UTF-8.
std::string CodePoints(const std::string& text, int32_t start, int32_t end) {
  size_t begin = text.size(), stop = text.size();
  int32_t index = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (index == start) begin = i;
    if (index == end) {
      stop = i;
      break;
    }
    ++index;
  }
  return begin < stop ? text.substr(begin, stop - begin) : std::string();
}

// The tokens head (see FinishOutcome).
void FinishTokens(const TaskSpec& spec, Outcome& o) {
  const size_t labels = spec.labels.size();
  if (o.spans.empty() || o.output.size() != o.spans.size() * labels) {
    o.ok = false;
    o.reason = reason::kModelError;
    o.error = "the model gave " + std::to_string(o.output.size()) + " values for " + std::to_string(o.spans.size()) +
              " tokens of " + std::to_string(labels) + " labels";
    o.output.clear();
    return;
  }
  std::vector<TokenLabel> tokens;
  for (size_t t = 0; t < o.spans.size(); ++t) {
    const TokenSpan& span = o.spans[t];
    if (span.special) continue;
    const float* logits = o.output.data() + t * labels;
    const size_t top = size_t(std::max_element(logits, logits + labels) - logits);  // the first of equal maxima
    double sum = 0;
    for (size_t c = 0; c < labels; ++c) sum += std::exp(double(logits[c]) - double(logits[top]));
    tokens.push_back({span.token, span.start, span.end, spec.labels[top], float(1.0 / sum)});
  }
  std::vector<Entity> entities;
  auto close = [&](size_t first, size_t last) {  // tokens[first, last] as one group
    Entity e;
    const std::string& label = tokens[first].label;
    const size_t dash = label.find('-');
    e.label = dash == std::string::npos ? label : label.substr(dash + 1);
    if (e.label == "O") return;  // the pipeline's ignore_labels
    double score = 0;
    for (size_t k = first; k <= last; ++k) score += tokens[k].score;
    e.score = float(score / double(last - first + 1));
    e.start = tokens[first].start;
    e.end = tokens[last].end;
    e.text = CodePoints(o.text, e.start, e.end);
    entities.push_back(std::move(e));
  };
  size_t first = 0;
  for (size_t k = 1; k < tokens.size(); ++k) {
    const auto [bi, tag] = Tag(tokens[k].label);
    if (tag == Tag(tokens[k - 1].label).second && bi != 'B') continue;
    close(first, k - 1);
    first = k;
  }
  if (!tokens.empty()) close(first, tokens.size() - 1);
  o.entities = std::move(entities);
  o.tokens = std::move(tokens);
  o.output.clear();
}

}  // namespace

std::vector<Entity> MergeWindowEntities(std::vector<Entity> entities) {
  if (entities.empty()) return entities;
  std::stable_sort(entities.begin(), entities.end(), [](const Entity& a, const Entity& b) { return a.start < b.start; });
  std::vector<Entity> merged;
  Entity previous = entities.front();
  for (const Entity& e : entities) {
    if (previous.start <= e.start && e.start < previous.end) {
      const int32_t length = e.end - e.start, previous_length = previous.end - previous.start;
      if (length > previous_length || (length == previous_length && e.score > previous.score)) previous = e;
    } else {
      merged.push_back(std::move(previous));
      previous = e;
    }
  }
  merged.push_back(std::move(previous));
  return merged;
}

void FinishOutcome(const TaskSpec& spec, Outcome& o) {
  if (o.ok && spec.task == task::kTokens) FinishTokens(spec, o);
  o.text.clear();
  o.text.shrink_to_fit();
  o.spans.clear();
  o.spans.shrink_to_fit();
  std::vector<std::string> candidates = std::move(o.candidate_labels);
  o.candidate_labels.clear();
  if (!o.ok) return;
  if (spec.task == task::kZeroShot && !candidates.empty()) {
    if (o.output.size() != candidates.size()) {
      o.ok = false;
      o.reason = reason::kModelError;
      o.error = "zero-shot scoring gave " + std::to_string(o.output.size()) + " logits for " +
                std::to_string(candidates.size()) + " candidate labels";
      o.output.clear();
      return;
    }
    Score(spec.activation, candidates, o);
    o.output.clear();
    return;
  }
  if (spec.task == task::kRerank) {
    o.score = float(Sigmoid(o.output.at(0)));
    return;
  }
  if (spec.task == task::kTokenEmbed) {
    o.output_rows = int(o.input_length);
    return;
  }
  if (spec.task == task::kSparse) {
    std::vector<int32_t> indices;
    std::vector<float> values;
    for (size_t i = 0; i < o.output.size(); ++i) {
      if (o.output[i] != 0.0f) {
        indices.push_back(int32_t(i));
        values.push_back(o.output[i]);
      }
    }
    o.sparse_indices = std::move(indices);
    o.output = std::move(values);
    return;
  }
  if (spec.task != task::kClassify) return;
  Score(spec.activation, spec.labels, o);
}

namespace {

void Score(const std::string& how, const std::vector<std::string>& labels, Outcome& o) {
  const std::vector<float>& logits = o.output;
  std::vector<double> scores(logits.size());
  if (how == activation::kSoftmax) {
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (size_t i = 0; i < logits.size(); ++i) sum += scores[i] = std::exp(double(logits[i]) - top);
    for (double& s : scores) s /= sum;
  } else {
    for (size_t i = 0; i < logits.size(); ++i) scores[i] = Sigmoid(logits[i]);
  }
  std::vector<size_t> order(logits.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  o.scores.clear();
  o.scores.reserve(order.size());
  for (size_t i : order) o.scores.push_back({labels.at(i), float(scores[i])});
  o.label = o.scores.front().label;
}

}  // namespace

}  // namespace qinfer
