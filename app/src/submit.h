#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace qinfer::app {

struct SubmitOptions {
  std::string brokers = "127.0.0.1:9092";
  std::string topic = "jobs";
  std::string file;                               // JSONL; "-" = standard input
  std::map<std::string, std::string> properties;  // librdkafka, verbatim
  bool progress = true;                           // on a terminal only
  // Texts: every line must be a text job ({"id", "text", ...}, no
  // input_ids); others are reported and skipped.
  bool text = false;
  // With `text`: the field that holds each line's text, sent as `text`
  // (e.g. "content" for {"id", "content"} lines). Default "text".
  std::string text_field = "text";
  // With `text`: the field that holds each line's second text of a pair,
  // sent as `text_pair` (for classify and rerank models); a line without a
  // string there is reported and skipped. Empty (default): lines are single
  // texts, sent as they are.
  std::string text_pair_field;
  // With `text`: the `prompt_name` of every line that names none (an embed
  // model's prompt, joined to the text before it is tokenized). Empty
  // (default): lines are sent as they are.
  std::string prompt_name;
  // A line's fields that are not job fields (a user's columns: `title`,
  // `url`) ride along in the job's `meta`, and so come back with its
  // result; a column whose name is also a key of the line's own `meta`, or
  // a line whose `meta` is not an object, is reported and skipped. true:
  // every line with such a field is reported and skipped instead.
  bool refuse_extra_fields = false;
  // Images: a directory (every image file under it, recursively, in name
  // order: one job each, its id the file's path relative to the directory)
  // or a JSONL file whose lines name an image in `image_field` (a path,
  // relative to the file's directory, or an http(s):// or file:// URL) or
  // carry `image` / `image_url` themselves; a line's other columns ride
  // in `meta`. Empty: `file` is a JSONL of jobs.
  std::string images;
  std::string image_field = "path";
  // How a local image file is sent: "inline" (its bytes, base64, in the
  // message; one whose message would pass max_inline_bytes is reported and
  // skipped) or "url" (a file:// URL of its absolute path, which the
  // service reads under its inputs.image_roots).
  std::string images_as = "inline";
  size_t max_inline_bytes = 750 << 10;  // Kafka's default 1 MB message bound, less base64's third
  // Zero-shot: every image job's candidate labels (and template, "": the
  // model's).
  std::vector<std::string> candidate_labels;
  std::string hypothesis_template;
};

// One line as the job message it is sent as: with `text`, the text job it
// stands for (see SubmitOptions); a user's columns moved into `meta` (or
// refused); `line` re-encoded when anything changed, and `key` its `id`
// (empty without one). Returns what is wrong with the line (it is then
// skipped, nothing sent), or nullopt.
std::optional<std::string> PrepareLine(const SubmitOptions& options, std::string& line, std::string& key);

// Publishes every JSON-object line of the file as one job message (key: its
// `id` when present), or with `images` one image job per image. A line that
// is not a JSON object (or, with `text`, not a text job; with `images`, one
// that names no image that can be read) is reported with its line number and
// skipped. Returns 0 when every good line was acknowledged.
int Submit(const SubmitOptions& options);

// The image jobs of options.images, one JSON line each, in order; `bad`
// receives each one that cannot be made (a file that cannot be read, an
// inline image over max_inline_bytes) with why. For Submit and its tests.
std::vector<std::string> ImageJobLines(const SubmitOptions& options, std::vector<std::string>& bad);

}  // namespace qinfer::app
