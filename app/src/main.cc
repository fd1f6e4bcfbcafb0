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
#include "admission_checks.h"
#include "plan.h"
#include "qinfer/executor/cpu_block_cache.h"
#include "replay.h"
#include "results.h"
#include "serve.h"
#include "status.h"
#include "submit.h"

namespace {

using qinfer::app::Config;
using qinfer::app::ConfigUse;
using Properties = std::map<std::string, std::string>;

// `-X key=value` flags into `out`; false (having said why) on one without '='.
bool ParseProperties(const char* command, const std::vector<std::string>& flags, Properties& out) {
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
std::optional<Config> LoadConfigFor(const char* command, const std::string& path,
                                    const std::vector<std::string>& overrides, ConfigUse use = ConfigUse::kServe) {
  auto config = qinfer::app::LoadConfig(path, overrides, use);
  if (!config.ok()) {
    std::cerr << "qinfer " << command << ": " << config.status().message() << "\n";
    return std::nullopt;
  }
  return *std::move(config);
}

// --config FILE and --set section.key=value of one subcommand.
struct ConfigFlags {
  std::string path;
  std::vector<std::string> sets;
};

void AddConfigFlags(CLI::App* cmd, ConfigFlags& flags, const std::string& what) {
  cmd->add_option("--config,-c", flags.path, what)->check(CLI::ExistingFile);
  cmd->add_option("--set", flags.sets, "Override a key: section.key=value (repeatable)");
}

// The configuration of a command that talks to Kafka or a store (model.path
// may stay unset): file, environment and --set when --config or --set is
// given; else the defaults, which are those of its flags, so that without
// them it runs as it always did.
std::optional<Config> ClientConfig(const char* command, const ConfigFlags& flags) {
  if (flags.path.empty() && flags.sets.empty()) return Config{};
  return LoadConfigFor(command, flags.path, flags.sets, ConfigUse::kClient);
}

// The flag's value where it was given, else the configuration's.
template <class T>
void Configured(const CLI::Option* flag, T& value, const T& configured) {
  if (flag->count() == 0) value = configured;
}

struct ServeCli {
  ConfigFlags config;
  qinfer::app::ServeOptions options;
  bool print_config = false;
};
CLI::App* AddServe(CLI::App& app, ServeCli& s) {
  CLI::App* serve = app.add_subcommand("serve", "Run the service");
  AddConfigFlags(serve, s.config, "YAML configuration file");
  serve->add_option("--idle-exit", s.options.idle_exit_seconds,
                    "Exit once every consumed job has a record and no message arrived for N s");
  serve->add_flag("--recalibrate", s.options.recalibrate, "Calibrate the memory plan even if a stored one matches");
  // Hidden (group ""): a test hook, see ServeOptions::hold_file_for_test.
  serve->add_option("--test-hold-file", s.options.hold_file_for_test)->group("");
  serve->add_flag("--print-config", s.print_config, "Print the effective configuration and exit");
  return serve;
}
int RunServe(ServeCli& s) {
  auto config = LoadConfigFor("serve", s.config.path, s.config.sets);
  if (!config) return 2;
  if (s.print_config) {
    std::cout << qinfer::app::DumpConfig(*config) << "\n";
    return 0;
  }
  return qinfer::app::Serve(*config, s.options);
}

struct PlanCli {
  ConfigFlags config;
  bool recalibrate = false;
};
CLI::App* AddPlan(CLI::App& app, PlanCli& p) {
  CLI::App* plan = app.add_subcommand("plan", "Calibrate (or reuse) and print the memory plan");
  AddConfigFlags(plan, p.config, "YAML configuration file");
  plan->add_flag("--recalibrate", p.recalibrate, "Calibrate even if a stored plan matches");
  return plan;
}
int RunPlan(PlanCli& p) {
  auto config = LoadConfigFor("plan", p.config.path, p.config.sets);
  if (!config) return 2;
  return qinfer::app::PlanCommand(*config, p.recalibrate);
}

struct SubmitCli {
  ConfigFlags config;
  qinfer::app::SubmitOptions options;
  std::vector<std::string> props;
  bool no_progress = false;
  CLI::Option* brokers = nullptr;
  CLI::Option* topic = nullptr;
};
CLI::App* AddSubmit(CLI::App& app, SubmitCli& s) {
  CLI::App* submit = app.add_subcommand("submit", "Publish a JSONL file of jobs, or a folder of images");
  AddConfigFlags(submit, s.config, "Take kafka.brokers, kafka.jobs_topic and kafka.producer from this configuration");
  s.brokers = submit->add_option("--brokers,-b", s.options.brokers, "Kafka bootstrap servers");
  s.topic = submit->add_option("--topic,-t", s.options.topic, "Jobs topic");
  CLI::Option* file = submit->add_option("file", s.options.file, "JSONL file, one job per line ('-': stdin)");
  CLI::Option* images =
      submit->add_option("--images", s.options.images,
                         "Image jobs instead: a directory (each image file under it one job, its id the path "
                         "relative to the directory) or a JSONL file whose lines name an image in --image-field "
                         "(a path relative to the file, or an http(s):// or file:// URL); other columns ride in "
                         "`meta`")
          ->excludes(file);
  file->excludes(images);
  submit->add_option("--image-field", s.options.image_field, "With a JSONL --images: the field naming each image")
      ->needs(images)
      ->capture_default_str();
  submit
      ->add_option("--images-as", s.options.images_as,
                   "With --images: inline (the file's bytes in the message, base64; one over 750 KiB is reported "
                   "and skipped) or url (a file:// URL the service reads under its inputs.image_roots)")
      ->needs(images)
      ->capture_default_str();
  submit
      ->add_option("--candidate-labels", s.options.candidate_labels,
                   "With --images: every image's zero-shot labels (comma-separated or repeated)")
      ->delimiter(',')
      ->needs(images);
  submit
      ->add_option("--hypothesis-template", s.options.hypothesis_template,
                   "With --candidate-labels: the text each label goes in ({} where it goes; default: the model's)")
      ->needs(images);
  // One key=value an -X: the file after it is the file, not another property.
  submit->add_option("-X", s.props, "librdkafka property key=value (repeatable; over the configuration's)")
      ->allow_extra_args(false);
  CLI::Option* text = submit->add_flag("--text", s.options.text,
                   "Lines are texts ({\"id\", \"text\"}), tokenized by the service with the model's tokenizer; "
                   "a line without a string text is reported and skipped");
  submit
      ->add_option("--text-field", s.options.text_field,
                   "With --text: the field that holds each line's text, sent as `text`")
      ->capture_default_str();
  submit->add_option("--text-pair-field", s.options.text_pair_field,
                     "With --text: the field that holds each line's second text of a pair, sent as `text_pair` "
                     "(classify and rerank models take pairs); a line without a string there is reported and "
                     "skipped")
      ->needs(text);
  submit->add_option("--prompt-name", s.options.prompt_name,
                     "With --text: the prompt_name of every line that names none (one of an embed model's "
                     "prompts, joined to the text before it is tokenized, as encode(prompt_name=...))")
      ->needs(text);
  submit->add_flag("--refuse-extra-fields", s.options.refuse_extra_fields,
                   "Report and skip a line with fields a job does not carry, instead of moving them (a user's "
                   "columns: title, url) into the job's `meta`, where they come back with the result");
  submit->add_flag("--no-progress", s.no_progress, "Do not draw progress on the terminal");
  return submit;
}
int RunSubmit(SubmitCli& s) {
  if (s.options.file.empty() == s.options.images.empty()) {
    std::cerr << "submit: give a JSONL file of jobs or --images\n";
    return 2;
  }
  auto config = ClientConfig("submit", s.config);
  if (!config) return 2;
  Configured(s.brokers, s.options.brokers, config->kafka.brokers);
  Configured(s.topic, s.options.topic, config->kafka.jobs_topic);
  s.options.properties = config->kafka.producer;
  if (!ParseProperties("submit", s.props, s.options.properties)) return 2;
  s.options.progress = !s.no_progress;
  return qinfer::app::Submit(s.options);
}

struct ResultsCli {
  ConfigFlags config;
  qinfer::app::ResultsOptions options;
  CLI::Option* store = nullptr;
};
CLI::App* AddResults(CLI::App& app, ResultsCli& r) {
  CLI::App* results = app.add_subcommand("results", "Read results and failure records");
  AddConfigFlags(results, r.config, "Read the store at this configuration's storage.path");
  r.store = results->add_option("--store,-s", r.options.store, "Result store directory (or --config)");
  auto* by_id =
      results->add_option("--id", r.options.id, "Print the record of one job, with the records it superseded");
  auto* exp = results->add_option(
      "--export", r.options.export_to,
      "Write all final records to FILE.jsonl or FILE.ndjson (JSONL; '-': stdout) or FILE.parquet (a row a record, "
      "typed columns); another name is refused");
  auto* count = results->add_flag("--count", r.options.count,
                                  "Print counts of results, failures and superseded records (default)");
  auto* summary = results->add_flag("--summary", r.options.summary, "Throughput and per-bucket batching figures");
  results->add_flag("--failures", r.options.failures_only, "With --export: failures only");
  auto* decode = results->add_flag("--decode", r.options.decode,
                    "With --id or a JSONL --export: an `output` stored in a compact encoding (base64, binary, "
                    "ubinary, int8, uint8) as JSON numbers (base64's floats, the others' integers)");
  by_id->excludes(exp)->excludes(count)->excludes(summary);
  exp->excludes(count)->excludes(summary);
  decode->excludes(count)->excludes(summary);
  return results;
}
int RunResults(ResultsCli& r) {
  if (r.store->count() == 0 && r.config.path.empty() && r.config.sets.empty()) {
    std::cerr << "qinfer results: --store is required (or --config FILE, whose storage.path it reads)\n";
    return 2;
  }
  auto config = ClientConfig("results", r.config);
  if (!config) return 2;
  Configured(r.store, r.options.store, config->storage.path);
  return qinfer::app::Results(r.options);
}

struct StatusCli {
  qinfer::app::StatusOptions options;
  std::string config_path;
};
CLI::App* AddStatus(CLI::App& app, StatusCli& s) {
  CLI::App* status = app.add_subcommand("status", "Ask a running instance how it is doing");
  auto* address =
      status->add_option("--address,-a", s.options.address, "host:port of its http.listen (default 127.0.0.1:9400)");
  status->add_option("--config,-c", s.config_path, "Take the address from this configuration's http.listen")
      ->check(CLI::ExistingFile)
      ->excludes(address);
  status->add_flag("--json", s.options.json, "Print the instance's JSON instead of a table");
  status->add_option("--timeout", s.options.timeout_seconds, "Seconds to wait for an answer");
  return status;
}
int RunStatus(StatusCli& s) {
  if (!s.config_path.empty()) {
    auto config = LoadConfigFor("status", s.config_path, {}, ConfigUse::kClient);
    if (!config) return 2;
    s.options.address = config->http.listen;
    if (s.options.address.empty()) {
      std::cerr << "qinfer status: " << s.config_path << " sets no http.listen: the instance serves no status\n";
      return 2;
    }
  }
  return qinfer::app::Status(s.options);
}

struct ConfigCli {
  ConfigFlags config;
  bool print_defaults = false, print_effective = false, print_table = false;
};
CLI::App* AddConfig(CLI::App& app, ConfigCli& c) {
  CLI::App* cmd = app.add_subcommand("config", "Print the default or the effective configuration, or its table");
  auto* defaults = cmd->add_flag("--print-defaults", c.print_defaults,
                                 "A complete configuration file with every key at its default, commented");
  auto* effective = cmd->add_flag("--print-config", c.print_effective,
                                  "The effective configuration: file, environment and --set applied");
  auto* table = cmd->add_flag("--print-table", c.print_table,
                              "The configuration table of docs/guide/configuration.md (markdown): "
                              "every key, what it accepts, its default");
  defaults->excludes(effective)->excludes(table);
  effective->excludes(table);
  AddConfigFlags(cmd, c.config, "YAML configuration file");
  return cmd;
}
int RunConfig(ConfigCli& c) {
  if (c.print_defaults) {
    std::cout << qinfer::app::DefaultConfigFile();
    return 0;
  }
  if (c.print_table) {
    std::cout << qinfer::app::ConfigTableMarkdown();
    return 0;
  }
  if (!c.print_effective) {
    std::cerr << "qinfer config: say --print-defaults, --print-config or --print-table\n";
    return 2;
  }
  auto config = LoadConfigFor("config", c.config.path, c.config.sets);
  if (!config) return 2;
  std::cout << qinfer::app::DumpConfig(*config) << "\n";
  return 0;
}

struct CollectCli {
  ConfigFlags config;
  qinfer::app::CollectOptions options;
  std::vector<std::string> props;
  bool no_progress = false;
  CLI::Option *brokers = nullptr, *reply_topic = nullptr, *dead_letter_topic = nullptr, *store = nullptr;
};
CLI::App* AddCollect(CLI::App& app, CollectCli& c) {
  CLI::App* collect = app.add_subcommand(
      "collect", "Fold the reply and dead-letter topics into one result store (the results of every instance)");
  AddConfigFlags(collect, c.config,
                 "Take kafka.brokers, kafka.reply_topic, kafka.dead_letter_topic, kafka.consumer and storage.path "
                 "from this configuration");
  c.brokers = collect->add_option("--brokers,-b", c.options.brokers, "Kafka bootstrap servers");
  c.reply_topic = collect->add_option("--reply-topic", c.options.reply_topic, "Reply topic to collect");
  c.dead_letter_topic =
      collect->add_option("--dead-letter-topic", c.options.dead_letter_topic, "Dead-letter topic to collect");
  c.store = collect->add_option("--store,-s", c.options.store, "Result store directory it writes (or --config)");
  collect->add_option("--group", c.options.group, "Consumer group of its own (default qinfer-collect)");
  collect->add_option("--idle-exit", c.options.idle_exit_seconds,
                      "Exit once everything read is stored and nothing arrived for N s");
  collect->add_option("--max-message-bytes", c.options.max_message_bytes,
                      "Larger messages are counted as unreadable and skipped (default 64 MiB)");
  collect->add_option("-X", c.props, "librdkafka property key=value (repeatable; over the configuration's)");
  collect->add_flag("--no-progress", c.no_progress, "Do not log progress lines");
  return collect;
}
int RunCollect(CollectCli& c) {
  if (c.store->count() == 0 && c.config.path.empty() && c.config.sets.empty()) {
    std::cerr << "qinfer collect: --store is required (or --config FILE, whose storage.path it writes)\n";
    return 2;
  }
  auto config = ClientConfig("collect", c.config);
  if (!config) return 2;
  Configured(c.brokers, c.options.brokers, config->kafka.brokers);
  Configured(c.reply_topic, c.options.reply_topic, config->kafka.reply_topic);
  Configured(c.dead_letter_topic, c.options.dead_letter_topic, config->kafka.dead_letter_topic);
  Configured(c.store, c.options.store, config->storage.path);
  c.options.properties = config->kafka.consumer;
  if (!ParseProperties("collect", c.props, c.options.properties)) return 2;
  c.options.progress = !c.no_progress;
  return qinfer::app::Collect(c.options);
}

struct ReplayCli {
  ConfigFlags config;
  qinfer::app::ReplayOptions options;
  std::vector<std::string> reasons, ids, props;
  std::string since, until;
  bool no_progress = false;
  CLI::Option *store = nullptr, *dead_letter_topic = nullptr, *brokers = nullptr, *topic = nullptr;
};
CLI::App* AddReplay(CLI::App& app, ReplayCli& r);  // below main: the longest list of flags
int RunReplay(ReplayCli& r);

}  // namespace

int main(int argc, char** argv) {
  // Before any thread starts: the malloc setting the CPU allocator's block
  // cache is built around (executor/include/qinfer/executor/cpu_block_cache.h).
  qinfer::executor::TuneProcessMalloc();
  CLI::App app{"qinfer: batch/offline inference from Kafka with length-bucketed batches"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));

  ServeCli serve_cli;
  PlanCli plan_cli;
  SubmitCli submit_cli;
  ResultsCli results_cli;
  ReplayCli replay_cli;
  StatusCli status_cli;
  ConfigCli config_cli;
  CollectCli collect_cli;
  CLI::App* serve = AddServe(app, serve_cli);
  CLI::App* plan = AddPlan(app, plan_cli);
  CLI::App* submit = AddSubmit(app, submit_cli);
  CLI::App* results = AddResults(app, results_cli);
  CLI::App* replay = AddReplay(app, replay_cli);
  CLI::App* status = AddStatus(app, status_cli);
  CLI::App* config = AddConfig(app, config_cli);
  CLI::App* collect = AddCollect(app, collect_cli);

  CLI11_PARSE(app, argc, argv);
  qinfer::SetLogLevel(log_level);

  if (*serve) return RunServe(serve_cli);
  if (*plan) return RunPlan(plan_cli);
  if (*submit) return RunSubmit(submit_cli);
  if (*results) return RunResults(results_cli);
  if (*status) return RunStatus(status_cli);
  if (*config) return RunConfig(config_cli);
  if (*collect) return RunCollect(collect_cli);
  if (*replay) return RunReplay(replay_cli);
  return 0;
}

namespace {

CLI::App* AddReplay(CLI::App& app, ReplayCli& r) {
  qinfer::app::ReplayOptions& o = r.options;
  CLI::App* replay = app.add_subcommand(
      "replay", "Publish failed jobs again, with a policy or device override, from the store or the dead-letter topic");
  AddConfigFlags(replay, r.config,
                 "Take kafka.brokers, kafka.jobs_topic (--topic), kafka.producer, kafka.consumer and, without "
                 "--dead-letter-topic, storage.path (--store) from this configuration");
  r.store = replay->add_option("--store,-s", o.store,
                               "Select failures from this result store; with --dead-letter-topic: number each "
                               "replayed attempt after the id's current record in this store (a letter may be older)");
  r.dead_letter_topic = replay->add_option("--dead-letter-topic", o.dead_letter_topic,
                                           "Select failures from this dead-letter topic instead");
  replay->add_option("--partition", o.partition, "With --dead-letter-topic: only this partition (default: all)");
  replay->add_option("--from-offset", o.from_offset, "With --dead-letter-topic: first offset")->capture_default_str();
  replay->add_option("--to-offset", o.to_offset, "With --dead-letter-topic: last offset (default: the end)");
  r.brokers = replay->add_option("--brokers,-b", o.brokers, "Kafka bootstrap servers")->capture_default_str();
  r.topic =
      replay->add_option("--topic,-t", o.topic, "Where the replayed jobs go (it must exist)")->capture_default_str();
  replay->add_option("--reason", r.reasons,
                     "Only these reasons (comma-separated or repeated): "
                     "invalid, too_long, too_large, oom, model_error, crash, undeliverable "
                     "(default: all)");
  replay->add_option("--id", r.ids, "Only these job ids (repeatable)");
  replay->add_option("--ids-file", o.ids_file, "Only the job ids in this file, one per line");
  replay->add_option("--since", r.since,
                     "Only failures recorded at or after this time (RFC 3339, or ms since the epoch)");
  replay->add_option("--until", r.until, "Only failures recorded at or before this time");
  replay->add_option("--policy", o.overrides.policy,
                     "Over-long input policy: truncate, chunk, long_lane or reject (default: the service's "
                     "admission.too_long); resize for an image over limits.max_image_pixels (scaled down to it)");
  replay->add_option("--truncate-to", o.overrides.truncate_to, "Keep only the first N tokens (default: all)");
  replay->add_option("--device", o.overrides.device, "Run on this device: cpu (default: the service's)");
  replay->add_option("--max-tokens", o.overrides.max_tokens, "Admit inputs up to N tokens, in the service's long lane");
  replay->add_option("--max-attempts", o.limits.max_attempts, "Refuse to replay past this attempt")
      ->capture_default_str();
  replay->add_flag("--force", o.limits.force,
                   "Replay past --max-attempts, and replay invalid records too (they fail the same way unless "
                   "a limit they broke was raised)");
  replay->add_flag("--dry-run", o.dry_run, "List what would be sent; publish nothing");
  replay->add_flag("--no-progress", r.no_progress, "Do not print progress");
  replay->add_option("-X", r.props, "librdkafka property key=value (repeatable; over the configuration's)");
  return replay;
}

// RFC 3339 or milliseconds since the epoch.
std::optional<int64_t> Millis(const std::string& text) {
  int64_t ms = 0;
  if (absl::SimpleAtoi(text, &ms)) return ms;
  absl::Time t;
  std::string err;
  if (absl::ParseTime(absl::RFC3339_full, text, &t, &err)) return absl::ToUnixMillis(t);
  return std::nullopt;
}

int RunReplay(ReplayCli& r) {
  qinfer::app::ReplayOptions& o = r.options;
  for (const std::string& reason : r.reasons) {
    for (absl::string_view one : absl::StrSplit(reason, ',', absl::SkipEmpty())) {
      o.selection.reasons.insert(std::string(one));
    }
  }
  o.selection.ids.insert(r.ids.begin(), r.ids.end());
  for (auto [text, field, flag] : {std::tuple{&r.since, &o.selection.since_ms, "--since"},
                                   std::tuple{&r.until, &o.selection.until_ms, "--until"}}) {
    if (text->empty()) continue;
    auto ms = Millis(*text);
    if (!ms) {
      std::cerr << "qinfer replay: " << flag << " " << *text
                << ": expected RFC 3339 (2026-11-30T12:00:00Z) or milliseconds since the epoch\n";
      return 2;
    }
    *field = *ms;
  }
  auto config = ClientConfig("replay", r.config);
  if (!config) return 2;
  if (absl::Status chunk = CheckReplayPolicy(*config, o.overrides.policy); !chunk.ok()) {
    std::cerr << "replay: " << chunk.message() << "\n";
    return 2;
  }
  Configured(r.brokers, o.brokers, config->kafka.brokers);
  Configured(r.topic, o.topic, config->kafka.jobs_topic);
  const bool configured = !r.config.path.empty() || !r.config.sets.empty();
  if (configured && r.store->count() == 0 && r.dead_letter_topic->count() == 0) o.store = config->storage.path;
  // -X goes to both clients.
  o.properties = config->kafka.producer;
  o.consumer_properties = config->kafka.consumer;
  if (!ParseProperties("replay", r.props, o.properties) || !ParseProperties("replay", r.props, o.consumer_properties)) {
    return 2;
  }
  o.progress = !r.no_progress;
  return qinfer::app::Replay(o);
}

}  // namespace
