#pragma once

#include <map>
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
};

// Publishes every JSON-object line of the file as one job message (key: its
// `id` when present). A line that is not a JSON object (or, with `text`, not
// a text job) is reported with its line number and skipped. Returns 0 when
// every good line was acknowledged.
int Submit(const SubmitOptions& options);

}  // namespace qinfer::app
