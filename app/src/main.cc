// qinfer: one binary, subcommands. The only place that wires concrete
// classes together (serve.cc) lives beside this file.
#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <optional>
#include <tuple>

#include "collect.h"
#include "config.h"
#include "qinfer/core/logging.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "plan.h"
#include "replay.h"
#include "results.h"
#include "serve.h"
#include "status.h"
#include "submit.h"

#include <malloc.h>

namespace {

// `-X key=value` flags into `out`; false (having said why) on one without '='.
bool ParseProperties(const char* command, const std::vector<std::string>& flags,
                     std::map<std::string, std::string>& out) {
  for (const std::string& kv : flags) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      std::cerr << "qinfer " << command << ": -X " << kv << ": expected key=value\n";
      return false;
    }
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return true;
}

// LoadConfig, or nullopt having said why as "qinfer COMMAND: ...".
std::optional<qinfer::app::Config> LoadConfigFor(const char* command, const std::string& path,
                                                 const std::vector<std::string>& overrides) {
  auto config = qinfer::app::LoadConfig(path, overrides);
  if (!config.ok()) {
    std::cerr << "qinfer " << command << ": " << config.status().message() << "\n";
    return std::nullopt;
  }
  return *std::move(config);
}

}  // namespace

int main(int argc, char** argv) {
  // glibc's malloc raises its mmap threshold (up to 32 MiB) each time a large
  // block is freed, so torch's per-batch CPU tensors, whose sizes change with
  // every batch shape, end up in the arenas and their freed memory is kept:
  // under a long backlog serve's RSS reached 2.2 GB with at most 380 MB live
  // (bench/soak/run.sh, heaptrack). A fixed 1 MiB threshold returns every
  // large tensor to the system when it is freed: 0.4 GB in the same run
  // (bench/results/soak-mmap-threshold.json). Set before any thread starts.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  CLI::App app{"qinfer: batch/offline inference from Kafka with length-bucketed batches"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));

  // serve
  std::string config_path;
  std::vector<std::string> overrides;
  qinfer::app::ServeOptions serve_options;
  CLI::App* serve = app.add_subcommand("serve", "Run the service");
  serve->add_option("--config,-c", config_path, "YAML configuration file")->check(CLI::ExistingFile);
  serve->add_option("--set", overrides, "Override a key: section.key=value (repeatable)");
  serve->add_option("--idle-exit", serve_options.idle_exit_seconds,
                    "Exit once every consumed job has a record and no message arrived for N s");
  serve->add_flag("--recalibrate", serve_options.recalibrate,
                  "Calibrate the memory plan even if a stored one matches");
  bool print_config = false;
  serve->add_flag("--print-config", print_config, "Print the effective configuration and exit");

  // plan
  std::string plan_config_path;
  std::vector<std::string> plan_overrides;
  bool recalibrate = false;
  CLI::App* plan = app.add_subcommand("plan", "Calibrate (or reuse) and print the memory plan");
  plan->add_option("--config,-c", plan_config_path, "YAML configuration file")->check(CLI::ExistingFile);
  plan->add_option("--set", plan_overrides, "Override a key: section.key=value (repeatable)");
  plan->add_flag("--recalibrate", recalibrate, "Calibrate even if a stored plan matches");

  // submit
  qinfer::app::SubmitOptions submit_options;
  std::vector<std::string> submit_props;
  CLI::App* submit = app.add_subcommand("submit", "Publish a JSONL file of jobs");
  submit->add_option("--brokers,-b", submit_options.brokers, "Kafka bootstrap servers");
  submit->add_option("--topic,-t", submit_options.topic, "Jobs topic");
  submit->add_option("file", submit_options.file, "JSONL file, one job per line ('-': stdin)")
      ->required();
  submit->add_option("-X", submit_props, "librdkafka property key=value (repeatable)");
  submit->add_flag("--text", submit_options.text,
                   "Lines are texts ({\"id\", \"text\"}), tokenized by the service with the model's tokenizer; "
                   "a line without a string text is reported and skipped");
  submit->add_option("--text-field", submit_options.text_field,
                     "With --text: the field that holds each line's text, sent as `text`")
      ->capture_default_str();
  bool no_progress = false;
  submit->add_flag("--no-progress", no_progress, "Do not draw progress on the terminal");

  // results
  qinfer::app::ResultsOptions results_options;
  CLI::App* results = app.add_subcommand("results", "Read results and failure records");
  results->add_option("--store,-s", results_options.store, "Result store directory")->required();
  auto* by_id = results->add_option("--id", results_options.id,
                                    "Print the record of one job, with the records it superseded");
  auto* exp = results->add_option("--export", results_options.export_to,
                                  "Write all records as JSONL to FILE ('-': stdout)");
  auto* count = results->add_flag("--count", results_options.count,
                                  "Print counts of results, failures and superseded records (default)");
  auto* summary = results->add_flag("--summary", results_options.summary,
                                    "Throughput and per-bucket batching figures");
  results->add_flag("--failures", results_options.failures_only, "With --export: failures only");
  by_id->excludes(exp)->excludes(count)->excludes(summary);
  exp->excludes(count)->excludes(summary);

  // replay
  qinfer::app::ReplayOptions replay_options;
  std::vector<std::string> replay_reasons, replay_ids, replay_props;
  std::string since, until;
  bool replay_no_progress = false;
  CLI::App* replay = app.add_subcommand(
      "replay", "Publish failed jobs again, with a policy or device override, from the store or the dead-letter topic");
  replay->add_option("--store,-s", replay_options.store,
                     "Select failures from this result store; with --dead-letter-topic: number each replayed "
                     "attempt after the id's current record in this store (a letter may be older)");
  replay->add_option("--dead-letter-topic", replay_options.dead_letter_topic,
                     "Select failures from this dead-letter topic instead");
  replay->add_option("--partition", replay_options.partition,
                     "With --dead-letter-topic: only this partition (default: all)");
  replay->add_option("--from-offset", replay_options.from_offset, "With --dead-letter-topic: first offset")
      ->capture_default_str();
  replay->add_option("--to-offset", replay_options.to_offset, "With --dead-letter-topic: last offset (default: the end)");
  replay->add_option("--brokers,-b", replay_options.brokers, "Kafka bootstrap servers")->capture_default_str();
  replay->add_option("--topic,-t", replay_options.topic, "Where the replayed jobs go (it must exist)")
      ->capture_default_str();
  replay->add_option("--reason", replay_reasons, "Only these reasons (comma-separated or repeated): "
                                                 "invalid, too_long, oom, model_error, crash, undeliverable "
                                                 "(default: all)");
  replay->add_option("--id", replay_ids, "Only these job ids (repeatable)");
  replay->add_option("--ids-file", replay_options.ids_file, "Only the job ids in this file, one per line");
  replay->add_option("--since", since, "Only failures recorded at or after this time (RFC 3339, or ms since the epoch)");
  replay->add_option("--until", until, "Only failures recorded at or before this time");
  replay->add_option("--policy", replay_options.overrides.policy,
                     "Over-long input policy: truncate, chunk, long_lane or reject (default: the service's "
                     "admission.too_long)");
  replay->add_option("--truncate-to", replay_options.overrides.truncate_to,
                     "Keep only the first N tokens (default: all)");
  replay->add_option("--device", replay_options.overrides.device,
                     "Run on this device: cpu (default: the service's)");
  replay->add_option("--max-tokens", replay_options.overrides.max_tokens,
                     "Admit inputs up to N tokens, in the service's long lane");
  replay->add_option("--max-attempts", replay_options.limits.max_attempts,
                     "Refuse to replay past this attempt")
      ->capture_default_str();
  replay->add_flag("--force", replay_options.limits.force,
                   "Replay past --max-attempts, and replay invalid records too (they fail the same way unless "
                   "a limit they broke was raised)");
  replay->add_flag("--dry-run", replay_options.dry_run, "List what would be sent; publish nothing");
  replay->add_flag("--no-progress", replay_no_progress, "Do not print progress");
  replay->add_option("-X", replay_props, "librdkafka property key=value (repeatable)");

  // status
  qinfer::app::StatusOptions status_options;
  std::string status_config_path;
  CLI::App* status = app.add_subcommand("status", "Ask a running instance how it is doing");
  auto* status_address = status->add_option("--address,-a", status_options.address,
                                            "host:port of its http.listen (default 127.0.0.1:9400)");
  status->add_option("--config,-c", status_config_path, "Take the address from this configuration's http.listen")
      ->check(CLI::ExistingFile)
      ->excludes(status_address);
  status->add_flag("--json", status_options.json, "Print the instance's JSON instead of a table");
  status->add_option("--timeout", status_options.timeout_seconds, "Seconds to wait for an answer");

  // config
  std::string config_config_path;
  std::vector<std::string> config_overrides;
  bool print_defaults = false, print_effective = false;
  CLI::App* config_cmd = app.add_subcommand("config", "Print the default or the effective configuration");
  auto* defaults_flag = config_cmd->add_flag("--print-defaults", print_defaults,
                                             "A complete configuration file with every key at its default, commented");
  auto* effective_flag = config_cmd->add_flag("--print-config", print_effective,
                                              "The effective configuration: file, environment and --set applied");
  defaults_flag->excludes(effective_flag);
  config_cmd->add_option("--config,-c", config_config_path, "YAML configuration file")->check(CLI::ExistingFile);
  config_cmd->add_option("--set", config_overrides, "Override a key: section.key=value (repeatable)");

  // collect
  qinfer::app::CollectOptions collect_options;
  std::vector<std::string> collect_props;
  bool collect_no_progress = false;
  CLI::App* collect = app.add_subcommand(
      "collect", "Fold the reply and dead-letter topics into one result store (the results of every instance)");
  collect->add_option("--brokers,-b", collect_options.brokers, "Kafka bootstrap servers");
  collect->add_option("--reply-topic", collect_options.reply_topic, "Reply topic to collect");
  collect->add_option("--dead-letter-topic", collect_options.dead_letter_topic, "Dead-letter topic to collect");
  collect->add_option("--store,-s", collect_options.store, "Result store directory it writes")->required();
  collect->add_option("--group", collect_options.group, "Consumer group of its own (default qinfer-collect)");
  collect->add_option("--idle-exit", collect_options.idle_exit_seconds,
                      "Exit once everything read is stored and nothing arrived for N s");
  collect->add_option("--max-message-bytes", collect_options.max_message_bytes,
                      "Larger messages are counted as unreadable and skipped (default 64 MiB)");
  collect->add_option("-X", collect_props, "librdkafka property key=value (repeatable)");
  collect->add_flag("--no-progress", collect_no_progress, "Do not log progress lines");

  CLI11_PARSE(app, argc, argv);
  qinfer::SetLogLevel(log_level);

  if (*serve) {
    auto config = LoadConfigFor("serve", config_path, overrides);
    if (!config) return 2;
    if (print_config) {
      std::cout << qinfer::app::DumpConfig(*config) << "\n";
      return 0;
    }
    return qinfer::app::Serve(*config, serve_options);
  }
  if (*plan) {
    auto config = LoadConfigFor("plan", plan_config_path, plan_overrides);
    if (!config) return 2;
    return qinfer::app::PlanCommand(*config, recalibrate);
  }
  if (*submit) {
    if (!ParseProperties("submit", submit_props, submit_options.properties)) return 2;
    submit_options.progress = !no_progress;
    return qinfer::app::Submit(submit_options);
  }
  if (*results) return qinfer::app::Results(results_options);
  if (*status) {
    if (!status_config_path.empty()) {
      // Only http.listen matters here: a configuration without model.path
      // still names the address.
      std::vector<std::string> sets = {"model.path=-"};
      auto config = LoadConfigFor("status", status_config_path, sets);
      if (!config) return 2;
      status_options.address = config->http.listen;
      if (status_options.address.empty()) {
        std::cerr << "qinfer status: " << status_config_path << " sets no http.listen: the instance serves no status\n";
        return 2;
      }
    }
    return qinfer::app::Status(status_options);
  }
  if (*config_cmd) {
    if (print_defaults) {
      std::cout << qinfer::app::DefaultConfigFile();
      return 0;
    }
    if (!print_effective) {
      std::cerr << "qinfer config: say --print-defaults or --print-config\n";
      return 2;
    }
    auto config = LoadConfigFor("config", config_config_path, config_overrides);
    if (!config) return 2;
    std::cout << qinfer::app::DumpConfig(*config) << "\n";
    return 0;
  }
  if (*collect) {
    if (!ParseProperties("collect", collect_props, collect_options.properties)) return 2;
    collect_options.progress = !collect_no_progress;
    return qinfer::app::Collect(collect_options);
  }
  if (*replay) {
    for (const std::string& r : replay_reasons) {
      for (absl::string_view one : absl::StrSplit(r, ',', absl::SkipEmpty())) {
        replay_options.selection.reasons.insert(std::string(one));
      }
    }
    replay_options.selection.ids.insert(replay_ids.begin(), replay_ids.end());
    // RFC 3339 or milliseconds since the epoch.
    auto millis = [](const std::string& text) -> std::optional<int64_t> {
      int64_t ms = 0;
      if (absl::SimpleAtoi(text, &ms)) return ms;
      absl::Time t;
      std::string err;
      if (absl::ParseTime(absl::RFC3339_full, text, &t, &err)) return absl::ToUnixMillis(t);
      return std::nullopt;
    };
    for (auto [text, field, flag] : {std::tuple{&since, &replay_options.selection.since_ms, "--since"},
                                     std::tuple{&until, &replay_options.selection.until_ms, "--until"}}) {
      if (text->empty()) continue;
      auto ms = millis(*text);
      if (!ms) {
        std::cerr << "qinfer replay: " << flag << " " << *text
                  << ": expected RFC 3339 (2026-11-30T12:00:00Z) or milliseconds since the epoch\n";
        return 2;
      }
      *field = *ms;
    }
    if (!ParseProperties("replay", replay_props, replay_options.properties)) return 2;
    replay_options.progress = !replay_no_progress;
    return qinfer::app::Replay(replay_options);
  }
  return 0;
}
