#include "submit.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
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

// The file extensions a directory's image files have.
bool IsImageFile(const std::filesystem::path& p) {
  static constexpr const char* kExtensions[] = {".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp", ".tif", ".tiff"};
  std::string ext = p.extension().string();
  absl::AsciiStrToLower(&ext);
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

// `doc`'s image from the local file `path`, as options.images_as says;
// what is wrong otherwise.
std::optional<std::string> SetImage(const SubmitOptions& o, const std::filesystem::path& path, nlohmann::json& doc) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (o.images_as == "url") {
    if (!std::filesystem::is_regular_file(absolute, ec)) return path.string() + " is not a file";
    doc["image_url"] = "file://" + absolute.lexically_normal().string();
    return std::nullopt;
  }
  const uintmax_t size = std::filesystem::file_size(absolute, ec);
  if (ec) return path.string() + ": " + ec.message();
  if (size > o.max_inline_bytes) {
    return path.string() + " is " + std::to_string(size) + " bytes, more than " + std::to_string(o.max_inline_bytes) +
           " inline (a Kafka message holds 1 MB by default): send it with --images-as url, or raise the topic's "
           "max.message.bytes and the service's limits.max_message_bytes";
  }
  std::ifstream in(absolute, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return path.string() + " cannot be read";
  doc["image"] = absl::Base64Escape(bytes);
  return std::nullopt;
}

void AddLabels(const SubmitOptions& o, nlohmann::json& doc) {
  if (!o.candidate_labels.empty() && !doc.contains("candidate_labels")) doc["candidate_labels"] = o.candidate_labels;
  if (!o.hypothesis_template.empty() && !doc.contains("hypothesis_template")) {
    doc["hypothesis_template"] = o.hypothesis_template;
  }
}

}  // namespace

std::vector<std::string> ImageJobLines(const SubmitOptions& o, std::vector<std::string>& bad) {
  std::vector<std::string> lines;
  const std::filesystem::path source(o.images);
  std::error_code ec;
  if (std::filesystem::is_directory(source, ec)) {
    std::vector<std::filesystem::path> files;
    for (auto it = std::filesystem::recursive_directory_iterator(source, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && IsImageFile(it->path())) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      nlohmann::json doc;
      doc["id"] = file.lexically_relative(source).string();
      if (std::optional<std::string> why = SetImage(o, file, doc)) {
        bad.push_back(*why);
        continue;
      }
      AddLabels(o, doc);
      lines.push_back(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    return lines;
  }
  std::ifstream in(source);
  if (!in) {
    bad.push_back("cannot open " + o.images + " (a directory of images or a JSONL file)");
    return lines;
  }
  std::string line;
  for (uint64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
    const std::string where = o.images + ":" + std::to_string(line_no) + ": ";
    if (doc.is_discarded() || !doc.is_object()) {
      bad.push_back(where + "not a JSON object");
      continue;
    }
    if (!doc.contains("image") && !doc.contains("image_url")) {
      auto field = doc.find(o.image_field);
      if (field == doc.end() || !field->is_string()) {
        bad.push_back(where + "no string `" + o.image_field + "` (nor `image` or `image_url`)");
        continue;
      }
      const std::string named = field->get<std::string>();
      doc.erase(o.image_field);
      if (named.starts_with("http://") || named.starts_with("https://") || named.starts_with("file://")) {
        doc["image_url"] = named;
      } else {
        const std::filesystem::path path = std::filesystem::path(named).is_absolute()
                                               ? std::filesystem::path(named)
                                               : source.parent_path() / named;
        if (std::optional<std::string> why = SetImage(o, path, doc)) {
          bad.push_back(where + *why);
          continue;
        }
        if (!doc.contains("id")) doc["id"] = named;
      }
    }
    AddLabels(o, doc);
    lines.push_back(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return lines;
}

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
  std::istringstream image_lines;
  std::istream* in = &std::cin;
  uint64_t image_refusals = 0;
  if (!o.images.empty()) {
    if (o.images_as != "inline" && o.images_as != "url") {
      std::cerr << "submit: --images-as " << o.images_as << ": expected inline or url\n";
      return 2;
    }
    std::vector<std::string> refused;
    std::string joined;
    for (const std::string& line : ImageJobLines(o, refused)) joined += line + "\n";
    for (const std::string& why : refused) std::cerr << "submit: " << why << ", skipped\n";
    image_refusals = refused.size();
    image_lines.str(joined);
    in = &image_lines;
  } else if (o.file != "-") {
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
  uint64_t line_no = 0, sent = 0, bad = image_refusals;
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
