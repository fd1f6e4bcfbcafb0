#pragma once

#include <map>
#include <optional>
#include <string>

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
};

// One line as the job message it is sent as: with `text`, the text job it
// stands for (see SubmitOptions); a user's columns moved into `meta` (or
// refused); `line` re-encoded when anything changed, and `key` its `id`
// (empty without one). Returns what is wrong with the line (it is then
// skipped, nothing sent), or nullopt.
std::optional<std::string> PrepareLine(const SubmitOptions& options, std::string& line, std::string& key);

// Publishes every JSON-object line of the file as one job message (key: its
// `id` when present). A line that is not a JSON object (or, with `text`, not
// a text job) is reported with its line number and skipped. Returns 0 when
// every good line was acknowledged.
int Submit(const SubmitOptions& options);

}  // namespace qinfer::app
