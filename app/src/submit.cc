#include "submit.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_join.h"
#include "qinfer/consumer/job_decoder.h"
#include "qinfer/core/clock.h"
#include "qinfer/storage/kafka_job_producer.h"

namespace qinfer::app {
namespace {

// Moves the string in `from` to `to` (the job's own field name); what is
// wrong when there is none, or when `to` is taken by another field.
std::optional<std::string> MoveStringField(nlohmann::json& doc, const std::string& from, const char* to) {
  auto field = doc.find(from);
  if (field == doc.end() || !field->is_string()) return "no string `" + from + "`";
  if (from == to) return std::nullopt;
  if (doc.contains(to)) return "has both `" + from + "` and `" + to + "`";
  nlohmann::json value = std::move(*field);
  doc.erase(from);
  doc[to] = std::move(value);
  return std::nullopt;
}

// A text line as the text job it stands for: its text under `text`, with
// --text-pair-field its second text under `text_pair`, and with
// --prompt-name that prompt_name where it names none (`changed` set when a
// field moved or was added); what is wrong with it otherwise.
std::optional<std::string> AsTextJob(const SubmitOptions& o, nlohmann::json& doc, bool& changed) {
  if (doc.contains("input_ids")) return "has `input_ids` beside its text";
  if (auto why = MoveStringField(doc, o.text_field, "text")) return why;
  if (!o.text_pair_field.empty()) {
    if (auto why = MoveStringField(doc, o.text_pair_field, "text_pair")) return why;
  }
  changed = o.text_field != "text" || (!o.text_pair_field.empty() && o.text_pair_field != "text_pair");
  // A null prompt_name names none, as the service reads it.
  const auto own = doc.find("prompt_name");
  if (!o.prompt_name.empty() && (own == doc.end() || own->is_null())) {
    doc["prompt_name"] = o.prompt_name;
    changed = true;
  }
  return std::nullopt;
}

std::string Quoted(const std::vector<std::string>& names) {
  return "`" + absl::StrJoin(names, "`, `") + "`";
}

// A user's columns (the fields that are not job fields) moved into `meta`
// (`changed` set when any moved); what is wrong otherwise.
std::optional<std::string> CarryColumns(const SubmitOptions& o, nlohmann::json& doc, bool& changed) {
  std::vector<std::string> columns;
  for (const auto& [name, value] : doc.items()) {
    if (!consumer::IsJobField(name)) columns.push_back(name);
  }
  if (columns.empty()) return std::nullopt;
  if (o.refuse_extra_fields) {
    return "has fields a job does not carry: " + Quoted(columns) +
           " (--refuse-extra-fields; without it they ride along in `meta`)";
  }
  auto meta = doc.find("meta");
  if (meta != doc.end() && !meta->is_null() && !meta->is_object()) {
    return "has a `meta` that is not an object, so its fields " + Quoted(columns) + " cannot ride in it";
  }
  if (meta == doc.end() || meta->is_null()) doc["meta"] = nlohmann::json::object();
  nlohmann::json& into = doc["meta"];
  for (const std::string& name : columns) {  // on a collision the line is skipped: `doc` is dropped
    if (into.contains(name)) return "has the field `" + name + "` and a key `" + name + "` in its `meta`";
    into[name] = std::move(doc[name]);
    doc.erase(name);
  }
  changed = true;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> PrepareLine(const SubmitOptions& o, std::string& line, std::string& key) {
  nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return "not a JSON object";
  bool changed = false;
  if (o.text) {
    if (std::optional<std::string> why = AsTextJob(o, doc, changed)) return why;
  }
  if (std::optional<std::string> why = CarryColumns(o, doc, changed)) return why;
  if (changed) line = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  key.clear();
  if (auto it = doc.find("id"); it != doc.end() && it->is_string()) key = it->get<std::string>();
  return std::nullopt;
}

int Submit(const SubmitOptions& o) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (o.file != "-") {
    file.open(o.file);
    if (!file) {
      std::cerr << "submit: cannot open " << o.file << "\n";
      return 2;
    }
    in = &file;
  }
  auto producer = storage::KafkaJobProducer::Create({o.brokers, o.properties, "app"});
  if (!producer.ok()) {
    std::cerr << "submit: " << producer.status().message() << "\n";
    return 2;
  }
  storage::KafkaJobProducer& out = **producer;

  const bool tty = o.progress && isatty(STDERR_FILENO);
  auto last_progress = RealClock().Now();
  uint64_t line_no = 0, sent = 0, bad = 0;
  auto show = [&] {
    std::fprintf(stderr, "\rsubmit: %llu sent, %llu acknowledged, %llu bad lines", (unsigned long long)sent,
                 (unsigned long long)out.acked(), (unsigned long long)bad);
  };
  std::string line;
  while (std::getline(*in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string key;
    if (std::optional<std::string> why = PrepareLine(o, line, key)) {
      std::cerr << "submit: line " << line_no << ": " << *why << ", skipped\n";
      ++bad;
      continue;
    }
    if (absl::Status s = out.Send(o.topic, key, line); !s.ok()) {
      std::cerr << "submit: line " << line_no << ": " << s.message() << "\n";
      return 1;
    }
    ++sent;
    if (tty && RealClock().Now() - last_progress > std::chrono::milliseconds(250)) {
      last_progress = RealClock().Now();
      show();
    }
  }
  out.Flush([&] {
    if (tty) show();
  });
  if (tty) std::fprintf(stderr, "\n");
  std::cout << "submitted " << out.acked() << " of " << sent << " jobs to " << o.topic
            << " (acknowledged by the broker)";
  if (bad > 0) std::cout << "; skipped " << bad << " bad lines";
  std::cout << "\n";
  if (out.failed() > 0) {
    std::cerr << "submit: " << out.failed() << " jobs were not delivered: " << out.first_error() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace qinfer::app
