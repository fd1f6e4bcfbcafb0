#include "qinfer/core/task.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qinfer {

bool IsTask(std::string_view name) {
  return name == task::kEmbed || name == task::kClassify || name == task::kRerank || name == task::kTokens;
}

absl::Status TaskSpec::Check(int dim) const {
  if (!IsTask(task)) {
    return absl::InvalidArgumentError("task '" + task + "' is not one of embed, classify, rerank, tokens");
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
  const bool ok_activation = task == task::kEmbed    ? a == activation::kNone
                             : task == task::kRerank ? a == activation::kSigmoid
                             : task == task::kTokens ? a == activation::kSoftmax
                                                     : a == activation::kSoftmax || a == activation::kSigmoid;
  if (!ok_activation) {
    return absl::InvalidArgumentError(
        "activation '" + a + "' does not fit task " + task + " (embed: none; classify: softmax or sigmoid; " +
        "rerank: sigmoid; tokens: softmax)");
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

}  // namespace

void FinishOutcome(const TaskSpec& spec, Outcome& o) {
  if (!o.ok) return;
  if (spec.task == task::kRerank) {
    o.score = float(Sigmoid(o.output.at(0)));
    return;
  }
  if (spec.task != task::kClassify) return;
  const std::vector<float>& logits = o.output;
  std::vector<double> scores(logits.size());
  if (spec.activation == activation::kSoftmax) {
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
  for (size_t i : order) o.scores.push_back({spec.labels.at(i), float(scores[i])});
  o.label = o.scores.front().label;
}

}  // namespace qinfer
