#include "qinfer/executor/precision_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_format.h"
#include "image_batches.h"
#include "qinfer/core/job.h"

namespace qinfer::executor {
namespace {

constexpr size_t kMaxRows = 16;
constexpr int kRowsPerLength = 3;

// Lengths from a short sentence to a long document, clipped to max_tokens,
// which itself is always one of them. Few distinct lengths: each new shape
// costs TorchScript a first-run optimisation on both models.
std::vector<int> ProbeLengths(int max_tokens) {
  std::set<int> lengths;
  for (int n : {7, 32, 128, 512}) lengths.insert(std::min(n, max_tokens));
  lengths.insert(max_tokens);
  return {lengths.begin(), lengths.end()};
}

// One probe row: token ids, or an image's pixel values (a model with an
// image tower gets a few synthetic images too).
struct ProbeRow {
  std::vector<int64_t> ids;
  std::vector<float> pixels;
  size_t length() const { return pixels.empty() ? ids.size() : 0; }
};

// Deterministic ids spread over the vocabulary; the first and the last id
// are left out where the vocabulary allows (padding ids, and the test
// models' fault markers sit there). Then, for a model with an image tower,
// kImageRows synthetic images (their length 0: one group).
constexpr int kImageRows = 3;
std::vector<ProbeRow> ProbeRows(const ModelManifest& manifest) {
  const int64_t vocab = manifest.vocab_size;
  const int64_t low = vocab > 2 ? 1 : 0;
  const int64_t span = vocab > 2 ? vocab - 2 : vocab;
  std::vector<ProbeRow> rows;
  const size_t token_rows = kMaxRows - (manifest.image ? kImageRows : 0);
  if (manifest.takes_tokens) {
    for (int length : ProbeLengths(manifest.max_text_tokens)) {
      for (int copy = 0; copy < kRowsPerLength && rows.size() < token_rows; ++copy) {
        std::vector<int64_t> row(static_cast<size_t>(length));
        const int64_t r = int64_t(rows.size());
        for (int64_t p = 0; p < length; ++p) row[size_t(p)] = low + (r * 7919 + p * 104729 + 17) % span;
        rows.push_back({std::move(row), {}});
      }
    }
  }
  for (int seed = 0; manifest.image && seed < kImageRows; ++seed) {
    rows.push_back({{}, SyntheticPixels(*manifest.image, seed)});
  }
  return rows;
}

// Cosine similarity; a non-finite value gives 0, two zero vectors 1.
double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * double(b[i]);
    na += double(a[i]) * double(a[i]);
    nb += double(b[i]) * double(b[i]);
  }
  if (!std::isfinite(dot) || !std::isfinite(na) || !std::isfinite(nb)) return 0;
  if (na == 0 && nb == 0) return 1;
  if (na == 0 || nb == 0) return 0;
  return dot / (std::sqrt(na) * std::sqrt(nb));
}

// The rows on the plain float32 CPU model: jobs with the `device: cpu`
// override, each run alone by Run.
absl::StatusOr<std::vector<std::vector<float>>> Float32Outputs(TorchModelRunner& runner,
                                                               const std::vector<ProbeRow>& rows) {
  const ModelManifest& manifest = runner.manifest();
  Batch batch;
  batch.bucket_bound = manifest.max_tokens;
  for (size_t i = 0; i < rows.size(); ++i) {
    Job job;
    job.id = absl::StrFormat("precision-probe-%d", i);
    job.input_ids = rows[i].ids;
    if (!rows[i].pixels.empty()) {
      job.pixels = rows[i].pixels;
      job.pixel_height = manifest.image->height;
      job.pixel_width = manifest.image->width;
      job.image_length = manifest.image->length;
    }
    job.device = "cpu";
    batch.jobs.push_back(std::move(job));
  }
  absl::StatusOr<std::vector<Outcome>> outcomes = runner.Run(batch);
  if (!outcomes.ok()) return outcomes.status();
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < outcomes->size(); ++i) {
    const Outcome& o = (*outcomes)[i];
    if (!o.ok) {
      return absl::InternalError(absl::StrFormat("precision probe: the float32 CPU model failed on %s: %s",
                                                 rows[i].pixels.empty()
                                                     ? absl::StrFormat("a row of %d tokens", rows[i].ids.size())
                                                     : std::string("a synthetic image"),
                                                 o.error));
    }
    out.push_back(o.output);
  }
  return out;
}

// The primary's outputs of `rows` run as one batch: token ids through
// Forward, images through ForwardImages.
absl::StatusOr<std::vector<std::vector<float>>> Forward(TorchModelRunner& runner, const std::vector<ProbeRow>& rows) {
  std::vector<std::vector<int64_t>> ids;
  std::vector<std::vector<float>> pixels;
  for (const ProbeRow& row : rows) {
    if (row.pixels.empty()) {
      ids.push_back(row.ids);
    } else {
      pixels.push_back(row.pixels);
    }
  }
  return pixels.empty() ? runner.Forward(ids) : runner.ForwardImages(pixels);
}

// The primary's outputs of `group` (rows of one length, run as one batch:
// no padding, so what is measured is the precision alone). On an OOM (a
// budgeted primary) the rows run one at a time, and a row that does not fit
// alone comes back as nullopt, as the memory plan leaves its bucket to the
// fallback device.
absl::StatusOr<std::vector<std::optional<std::vector<float>>>> ReducedOutputs(TorchModelRunner& runner,
                                                                              const std::vector<ProbeRow>& group) {
  absl::StatusOr<std::vector<std::vector<float>>> together = Forward(runner, group);
  if (!together.ok() && !absl::IsResourceExhausted(together.status())) return together.status();
  std::vector<std::optional<std::vector<float>>> out;
  if (together.ok()) {
    if (together->size() != group.size()) {
      return absl::InternalError("precision probe: the model gave another number of rows than it was given");
    }
    for (std::vector<float>& row : *together) out.push_back(std::move(row));
    return out;
  }
  for (const ProbeRow& row : group) {
    absl::StatusOr<std::vector<std::vector<float>>> alone = Forward(runner, {row});
    if (!alone.ok() && !absl::IsResourceExhausted(alone.status())) return alone.status();
    out.push_back(alone.ok() && alone->size() == 1 ? std::optional((*alone)[0]) : std::nullopt);
  }
  return out;
}

// The activated scores of one output vector (a row's logits, or a token's):
// a softmax, or a sigmoid per value.
std::vector<double> Scores(const float* logits, size_t n, bool sigmoid) {
  std::vector<double> s(n);
  if (sigmoid) {
    for (size_t i = 0; i < n; ++i) s[i] = 1.0 / (1.0 + std::exp(-double(logits[i])));
    return s;
  }
  double top = -std::numeric_limits<double>::infinity(), sum = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, double(logits[i]));
  for (size_t i = 0; i < n; ++i) sum += s[i] = std::exp(double(logits[i]) - top);
  for (double& v : s) v /= sum;
  return s;
}

// Compares a row's reduced-precision scores with float32's: each vector of
// `width` values (a row's logits, or each token's) as its task's user reads
// it. Returns the largest difference; counts the vectors whose top label
// changed (a vector of one value, a cross-encoder's, has no label).
double CompareScores(const std::vector<float>& got, const std::vector<float>& want, size_t width, bool sigmoid,
                     int& label_changes) {
  if (width == 0 || got.size() != want.size() || got.size() % width != 0) return 1.0;
  double worst = 0;
  for (size_t at = 0; at < got.size(); at += width) {
    const std::vector<double> a = Scores(got.data() + at, width, sigmoid);
    const std::vector<double> b = Scores(want.data() + at, width, sigmoid);
    for (size_t i = 0; i < width; ++i) {
      const double d = std::isfinite(a[i]) ? std::abs(a[i] - b[i]) : 1.0;
      worst = std::max(worst, d);
    }
    if (width > 1 && std::max_element(a.begin(), a.end()) - a.begin() != std::max_element(b.begin(), b.end()) -
                                                                             b.begin()) {
      ++label_changes;
    }
  }
  return worst;
}

}  // namespace

absl::StatusOr<PrecisionReport> CheckPrecision(TorchModelRunner& runner, double min_cosine, double max_score_diff) {
  if (!(min_cosine > 0 && min_cosine <= 1)) {
    return absl::InvalidArgumentError(absl::StrFormat("precision probe: floor %g is outside (0, 1]", min_cosine));
  }
  if (!(max_score_diff >= 0 && max_score_diff <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("precision probe: score bound %g is outside [0, 1]", max_score_diff));
  }
  const ModelManifest& manifest = runner.manifest();
  const TaskSpec& task = manifest.task;
  const std::vector<ProbeRow> rows = ProbeRows(manifest);
  PrecisionReport report{.dtype = runner.dtype(), .scores = task.has_logits() || task.task == task::kTokens, .floor = min_cosine,
                         .bound = max_score_diff};
  const bool sigmoid = task.activation == activation::kSigmoid;
  absl::StatusOr<std::vector<std::vector<float>>> reference = Float32Outputs(runner, rows);
  if (!reference.ok()) return reference.status();
  for (size_t begin = 0, end = 0; begin < rows.size(); begin = end) {
    while (end < rows.size() && rows[end].length() == rows[begin].length()) ++end;
    auto reduced = ReducedOutputs(runner, {rows.begin() + begin, rows.begin() + end});
    if (!reduced.ok()) return reduced.status();
    for (size_t i = begin; i < end; ++i) {
      const std::optional<std::vector<float>>& got = (*reduced)[i - begin];
      if (!got) {
        ++report.skipped;
        continue;
      }
      if (report.scores) {
        const double diff =
            CompareScores(*got, (*reference)[i], size_t(std::max(0, manifest.dim)), sigmoid, report.label_changes);
        if (report.rows++ == 0 || diff > report.max_score_diff) {
          report.max_score_diff = std::max(report.max_score_diff, diff);
          report.worst_length = int(rows[i].length());
        }
        continue;
      }
      const double cosine = Cosine(*got, (*reference)[i]);
      if (report.rows++ == 0 || cosine < report.min_cosine) {
        report.min_cosine = std::min(report.min_cosine, cosine);
        report.worst_length = int(rows[i].length());
      }
    }
  }
  return report;
}

}  // namespace qinfer::executor
