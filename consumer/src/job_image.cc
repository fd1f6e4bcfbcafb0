// Steps 2 and 3 for an image job (decoder_internal.h, DecodeImage): where
// its bytes come from, their bounds, the decode and the preparation, and a
// zero-shot job's labels.
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "decoder_internal.h"
#include "qinfer/consumer/decode_pool.h"
#include "qinfer/core/clock.h"
#include "qinfer/core/utf8.h"
#include "qinfer/image/decode.h"
#include "qinfer/image/processor.h"

namespace qinfer::consumer {
namespace {

// Why an image job failed, for its record and the failure counters.
struct ImageFailure {
  const char* reason = reason::kInvalid;  // invalid or too_large
  // The counter's: too_large, unsupported_format, corrupt (DecodeFailureLabel's), or source.
  std::string_view label = "source";
  std::string error;
};

void Count(const DecoderLimits& limits, const ImageFailure& f) {
  if (limits.image_stats == nullptr) return;
  DecodeStats& s = *limits.image_stats;
  (f.label == "too_large" ? s.image_too_large
   : f.label == "unsupported_format" ? s.image_unsupported
   : f.label == "corrupt" ? s.image_corrupt
                          : s.image_source)++;
}

// A path or URL as a message quotes it: its first 256 bytes.
std::string Shown(std::string_view s) { return std::string(Utf8Prefix(s, 256)); }

ImageFailure Source(std::string error) { return {reason::kInvalid, "source", std::move(error)}; }

ImageFailure TooManyBytes(const char* field, size_t bytes, const DecoderLimits& limits) {
  return {reason::kTooLarge, "too_large",
          absl::StrCat(field, " is ", bytes, " bytes, more than limits.max_image_bytes ", limits.max_image_bytes,
                       " (raise the bound to take it)")};
}

// `image`: standard base64 of the file's bytes, or a data: URI holding them.
std::variant<std::string, ImageFailure> InlineBytes(std::string_view value, const DecoderLimits& limits) {
  std::string_view b64 = value;
  if (value.starts_with("data:")) {
    const size_t comma = value.find(',');
    const std::string_view header = value.substr(0, comma);
    if (comma == std::string_view::npos || !header.ends_with(";base64") || !header.starts_with("data:image/")) {
      return Source("`image` is a data: URI, but not data:image/<type>;base64,<bytes>");
    }
    b64 = value.substr(comma + 1);
  }
  // 4 characters of base64 hold 3 bytes: a longer text holds more bytes than the bound.
  if ((b64.size() / 4) * 3 > limits.max_image_bytes + 3) return TooManyBytes("`image`", (b64.size() / 4) * 3, limits);
  std::string bytes;
  if (b64.empty() || !absl::Base64Unescape(absl::string_view(b64.data(), b64.size()), &bytes)) {
    return Source("`image` is not base64 (standard alphabet) of an image file's bytes, nor a data:image/...;base64, URI");
  }
  if (bytes.size() > limits.max_image_bytes) return TooManyBytes("`image`", bytes.size(), limits);
  return bytes;
}

// file:// — a regular file under one of image_roots, links resolved.
std::variant<std::string, ImageFailure> FileBytes(std::string_view path_text, const DecoderLimits& limits) {
  if (limits.image_roots.empty()) {
    return Source("`image_url` file:// is off: inputs.image_roots names no directory to read images from");
  }
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::canonical(std::filesystem::path(std::string(path_text)), ec);
  if (ec) return Source(absl::StrCat("`image_url` ", Shown(path_text), ": ", ec.message()));
  const std::string& p = path.native();
  bool inside = false;
  for (const std::string& root : limits.image_roots) {
    inside = inside || (p.size() > root.size() && p.starts_with(root) &&
                        (root.back() == '/' || p[root.size()] == '/'));
  }
  if (!inside) {
    return Source(absl::StrCat("`image_url` ", Shown(path_text),
                               " is outside inputs.image_roots (", absl::StrJoin(limits.image_roots, ", "), ")"));
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Source(absl::StrCat("`image_url` ", Shown(path_text), " is not a regular file"));
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Source(absl::StrCat("`image_url` ", Shown(path_text), ": ", ec.message()));
  if (size > limits.max_image_bytes) return TooManyBytes("`image_url`'s file", size_t(size), limits);
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size_t(size), '\0');
  if (!in.read(bytes.data(), std::streamsize(size))) {
    return Source(absl::StrCat("`image_url` ", Shown(path_text), ": cannot be read"));
  }
  return bytes;
}

// http(s):// — fetched within the timeout and the byte bound, following at
// most image_url_max_redirects redirects.
std::variant<std::string, ImageFailure> UrlBytes(std::string url, const DecoderLimits& limits) {
  const Clock& clock = RealClock();
  const SteadyTime deadline =
      clock.Now() + std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::duration<double>(limits.image_url_timeout_seconds));
  for (int redirects = 0;; ++redirects) {
    const size_t scheme_end = url.find("://");
    const size_t path_start = url.find('/', scheme_end + 3);
    const std::string origin = url.substr(0, path_start);
    const std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
    httplib::Client client(origin);
    if (!client.is_valid()) return Source(absl::StrCat("`image_url` ", Shown(url), " is not a URL this service reads"));
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - clock.Now());
    if (left.count() <= 0) break;
    client.set_connection_timeout(std::chrono::duration_cast<std::chrono::seconds>(left).count(),
                                  left.count() % 1000000);
    client.set_read_timeout(std::chrono::duration_cast<std::chrono::seconds>(left).count(), left.count() % 1000000);
    client.set_follow_location(false);
    std::string body;
    bool too_large = false, late = false;
    httplib::Result r = client.Get(
        path,
        [&](const httplib::Response& response) {
          if (response.has_header("Content-Length") &&
              std::strtoull(response.get_header_value("Content-Length").c_str(), nullptr, 10) >
                  limits.max_image_bytes) {
            too_large = true;
            return false;
          }
          return true;
        },
        [&](const char* data, size_t length) {
          if (body.size() + length > limits.max_image_bytes) {
            too_large = true;
            return false;
          }
          late = clock.Now() > deadline;
          body.append(data, length);
          return !late;
        });
    if (too_large) return TooManyBytes("`image_url`'s body", body.size() + 1, limits);
    // A read that ran out of the time left is the timeout's (its error says only "Read").
    if (late || (!r && clock.Now() + std::chrono::milliseconds(50) >= deadline)) break;
    if (!r) {
      return Source(absl::StrCat("`image_url` ", Shown(url), ": ", httplib::to_string(r.error())));
    }
    if (r->status >= 300 && r->status < 400 && r->has_header("Location")) {
      if (redirects >= limits.image_url_max_redirects) {
        return Source(absl::StrCat("`image_url` ", Shown(url), ": more than ",
                                   limits.image_url_max_redirects, " redirects"));
      }
      std::string next = r->get_header_value("Location");
      if (!next.starts_with("http://") && !next.starts_with("https://")) {
        if (next.empty() || next[0] != '/') {
          return Source(
              absl::StrCat("`image_url` ", Shown(url), " redirects to a relative location it cannot follow"));
        }
        next = origin + next;
      }
      url = std::move(next);
      continue;
    }
    if (r->status != 200) {
      return Source(absl::StrCat("`image_url` ", Shown(url), ": HTTP status ", r->status));
    }
    return body;
  }
  return Source(absl::StrCat("`image_url` ", Shown(url), ": no answer within ",
                             limits.image_url_timeout_seconds, " s"));
}

std::variant<std::string, ImageFailure> ImageBytes(const InputFields& in, const DecoderLimits& limits) {
  if (in.has_image) return InlineBytes(in.image->get_ref<const std::string&>(), limits);
  const std::string& url = in.image_url->get_ref<const std::string&>();
  if (url.starts_with("file://")) return FileBytes(std::string_view(url).substr(7), limits);
  if (url.starts_with("http://") || url.starts_with("https://")) return UrlBytes(url, limits);
  return Source("`image_url` must be a file:// URL (inside inputs.image_roots) or an http(s):// URL");
}

// The decoder's and the processor's refusals as records.
ImageFailure FromStatus(const absl::Status& status, const char* field, bool resized) {
  ImageFailure f;
  f.label = image::DecodeFailureLabel(status);
  f.reason = f.label == "too_large" ? reason::kTooLarge : reason::kInvalid;
  f.error = absl::StrCat(field, ": ", status.message());
  if (f.label == "too_large" && !resized) {
    absl::StrAppend(&f.error, " (replay it with --policy resize to scale it down to the bound, or raise the bound)");
  }
  return f;
}

// zero_shot: each candidate label in the job's hypothesis template,
// tokenized; the error names the field.
std::optional<std::string> ReadLabels(const InputFields& in, const DecoderLimits& limits, Job& job) {
  if (limits.hypothesis_template.empty() || limits.tokenizer == nullptr) {
    return std::string(in.has_labels ? "`candidate_labels`" : "`hypothesis_template`") +
           ": this model has no text tower to score labels with (zero-shot needs a CLIP or SigLIP package "
           "exported with --task zero_shot)";
  }
  if (!in.has_labels) return "`hypothesis_template` goes with `candidate_labels`";
  const json& labels = *in.labels;
  if (!labels.is_array() || labels.empty()) return "`candidate_labels` must be a non-empty array of strings";
  if (labels.size() > limits.max_candidate_labels) {
    return absl::StrCat("`candidate_labels` has ", labels.size(), " labels, more than ", limits.max_candidate_labels);
  }
  std::string hypothesis_template = limits.hypothesis_template;
  if (in.has_template) {
    if (!in.template_->is_string()) return "`hypothesis_template` must be a string";
    hypothesis_template = in.template_->get<std::string>();
    const size_t at = hypothesis_template.find("{}");
    if (at == std::string::npos || hypothesis_template.find("{}", at + 2) != std::string::npos ||
        hypothesis_template.size() > limits.max_label_bytes) {
      return absl::StrCat("`hypothesis_template` must hold {} once (where each label goes) within ",
                          limits.max_label_bytes, " bytes");
    }
  }
  const size_t at = hypothesis_template.find("{}");
  for (size_t i = 0; i < labels.size(); ++i) {
    if (!labels[i].is_string() || labels[i].get_ref<const std::string&>().empty()) {
      return absl::StrCat("`candidate_labels[", i, "]` must be a non-empty string");
    }
    const std::string& label = labels[i].get_ref<const std::string&>();
    if (label.size() > limits.max_label_bytes) {
      return absl::StrCat("`candidate_labels[", i, "]` is ", label.size(), " bytes, more than ",
                          limits.max_label_bytes);
    }
    std::string hypothesis = hypothesis_template;
    hypothesis.replace(at, 2, label);
    absl::StatusOr<tokenizer::Encoding> encoded = limits.tokenizer->Encode(hypothesis);
    if (!encoded.ok()) {
      return absl::StrCat("`candidate_labels[", i, "]` cannot be tokenized: ", encoded.status().message());
    }
    if (encoded->length() > limits.max_tokens) {
      return absl::StrCat("`candidate_labels[", i, "]` gives a hypothesis of ", encoded->length(),
                          " tokens, more than the text tower's ", limits.max_tokens);
    }
    if (auto bad = CheckTokenIds(encoded->Ids(), limits)) return absl::StrCat("`candidate_labels[", i, "]`: ", *bad);
    job.candidate_labels.push_back(label);
    job.label_ids.push_back(encoded->Ids());
  }
  return std::nullopt;
}

}  // namespace

Decoded DecodeImage(Job job, const InputFields& in, const std::string& requested, const DecoderLimits& limits,
                    const JobFailure& fail) {
  // The decode time counter: real time, the metric's.
  struct Timed {
    const DecoderLimits& limits;
    SteadyTime start = RealClock().Now();
    ~Timed() {
      if (limits.image_stats == nullptr) return;
      limits.image_stats->image_decode_ns +=
          uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(RealClock().Now() - start).count());
    }
  } timed{limits};
  const char* field = in.has_image ? "`image`" : "`image_url`";
  if (!requested.empty() && requested != policy::kResize) {
    return fail(reason::kInvalid,
                "`policy` " + requested + " is for an over-long text or input_ids; an image takes resize", 0);
  }
  if (job.truncate_to > 0 || !job.prompt_name.empty() || job.top_k > 0) {
    return fail(reason::kInvalid,
                std::string(job.truncate_to > 0 ? "`truncate_to`" : !job.prompt_name.empty() ? "`prompt_name`" : "`top_k`") +
                    " goes with a text, not an image",
                0);
  }
  if (in.has_labels || in.has_template) {
    if (auto bad = ReadLabels(in, limits, job)) return fail(reason::kInvalid, *std::move(bad), 0);
    if (job.dimensions > 0 || !job.encoding.empty()) {
      return fail(reason::kInvalid,
                  std::string(job.dimensions > 0 ? "`dimensions`" : "`encoding`") +
                      ": a zero-shot result is labels and scores, not a vector: send the job without it",
                  0);
    }
  }
  std::variant<std::string, ImageFailure> bytes = ImageBytes(in, limits);
  if (auto* f = std::get_if<ImageFailure>(&bytes)) {
    Count(limits, *f);
    return fail(f->reason, std::move(f->error), 0);
  }
  const bool resize = requested == policy::kResize;
  image::ImageLimits bounds;
  bounds.max_pixels = limits.max_image_pixels;
  bounds.max_bytes = limits.max_image_bytes;
  absl::StatusOr<image::RgbImage> rgb = image::Decode(std::get<std::string>(bytes), bounds, resize);
  absl::StatusOr<image::PixelValues> pixels =
      rgb.ok() ? limits.image_processor->Process(*rgb) : absl::StatusOr<image::PixelValues>(rgb.status());
  if (!pixels.ok()) {
    ImageFailure f = FromStatus(pixels.status(), field, resize);
    Count(limits, f);
    return fail(f.reason, std::move(f.error), 0);
  }
  job.pixels = std::move(pixels->values);
  job.pixel_height = int(pixels->height);
  job.pixel_width = int(pixels->width);
  job.image_length = limits.image_length;
  if (resize) {  // the policy applied, where it was needed
    absl::StatusOr<image::ImageInfo> header = image::ReadHeader(std::get<std::string>(bytes));
    if (header.ok() && header->width * header->height > limits.max_image_pixels) job.policy = policy::kResize;
  }
  if (limits.image_stats != nullptr) limits.image_stats->image_jobs++;
  std::vector<Job> jobs;
  jobs.push_back(std::move(job));
  return jobs;
}

}  // namespace qinfer::consumer
