// Configuration: precedence (file < environment < --set), unknown keys, bad
// values, bucket bounds, and the dump `serve --print-config` prints.
#include "config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "admission_checks.h"
#include "util/run_command.h"

namespace qinfer::app {
namespace {

// A YAML file in a fresh temporary directory, removed with the object.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& yaml) {
    dir_ = std::filesystem::temp_directory_path() /
           ("qinfer-config-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << yaml;
  }
  ~ConfigFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "qinfer.yaml").string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
};

// Sets an environment variable for the scope of one test.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_.c_str()); }

 private:
  std::string name_;
};

std::string ErrorOf(const absl::StatusOr<Config>& c) { return c.ok() ? "(loaded)" : std::string(c.status().message()); }

TEST(ConfigTest, WithoutModelPathStartUpIsRefusedWithTheFix) {
  auto c = LoadConfig("", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(ErrorOf(c).find("model.path is not set"), std::string::npos) << ErrorOf(c);
}

TEST(ConfigTest, DefaultsAreTheDocumentedOnes) {
  auto c = LoadConfig("", {"model.path=m.pt"});
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_EQ(c->model.device, "cpu");
  EXPECT_EQ(c->model.fallback_device, "auto");
  EXPECT_EQ(c->kafka.brokers, "127.0.0.1:9092");
  EXPECT_EQ(c->kafka.jobs_topic, "jobs");
  EXPECT_EQ(c->scheduler.max_batch_size, 64);
  EXPECT_EQ(c->scheduler.max_batch_delay.count(), 50);
  EXPECT_EQ(c->limits.max_message_bytes, size_t{1} << 20);
  EXPECT_EQ(c->recovery.max_attempts, 3);
  EXPECT_EQ(c->http.listen, "127.0.0.1:9400");
  EXPECT_TRUE(c->scheduler.bucket_bounds.empty());
}

TEST(ConfigTest, EnvironmentOverridesTheFileAndSetOverridesBoth) {
  ConfigFile file(
      "model:\n  path: from-file.pt\n"
      "scheduler:\n  max_batch_size: 8\n  tokens_per_batch: 1000\n"
      "kafka:\n  group_id: file-group\n");
  {
    auto c = LoadConfig(file.path(), {});
    ASSERT_TRUE(c.ok()) << ErrorOf(c);
    EXPECT_EQ(c->scheduler.max_batch_size, 8);
    EXPECT_EQ(c->kafka.group_id, "file-group");
  }
  ScopedEnv batch("QINFER_SCHEDULER_MAX_BATCH_SIZE", "16");
  ScopedEnv group("QINFER_KAFKA_GROUP_ID", "env-group");
  {
    auto c = LoadConfig(file.path(), {});
    ASSERT_TRUE(c.ok()) << ErrorOf(c);
    EXPECT_EQ(c->scheduler.max_batch_size, 16) << "environment over file";
    EXPECT_EQ(c->kafka.group_id, "env-group");
    EXPECT_EQ(c->scheduler.tokens_per_batch, 1000) << "a key the environment leaves keeps the file's value";
  }
  auto c = LoadConfig(file.path(), {"scheduler.max_batch_size=32", "model.path=from-set.pt"});
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_EQ(c->scheduler.max_batch_size, 32) << "--set over environment";
  EXPECT_EQ(c->model.path, "from-set.pt") << "--set over file";
  EXPECT_EQ(c->kafka.group_id, "env-group");
}

TEST(ConfigTest, ABadValueInTheEnvironmentNamesTheVariable) {
  ScopedEnv bad("QINFER_SCHEDULER_MAX_BATCH_SIZE", "lots");
  auto c = LoadConfig("", {"model.path=m.pt"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(ErrorOf(c).find("environment QINFER_SCHEDULER_MAX_BATCH_SIZE"), std::string::npos) << ErrorOf(c);
  EXPECT_NE(ErrorOf(c).find("expected an integer"), std::string::npos) << ErrorOf(c);
}

TEST(ConfigTest, UnknownKeysAreRefusedWhereverTheyComeFrom) {
  ConfigFile typo("model:\n  path: m.pt\nscheduler:\n  max_batch_sise: 8\n");
  auto from_file = LoadConfig(typo.path(), {});
  ASSERT_FALSE(from_file.ok());
  EXPECT_NE(ErrorOf(from_file).find("unknown configuration key 'scheduler.max_batch_sise' in " + typo.path()),
            std::string::npos)
      << ErrorOf(from_file);
  EXPECT_NE(ErrorOf(from_file).find("scheduler.max_batch_size"), std::string::npos)
      << "the message lists the known keys: " << ErrorOf(from_file);

  ConfigFile section("model:\n  path: m.pt\nschedular:\n  max_batch_size: 8\n");
  EXPECT_FALSE(LoadConfig(section.path(), {}).ok()) << "an unknown section";

  auto from_set = LoadConfig("", {"model.path=m.pt", "http.port=80"});
  ASSERT_FALSE(from_set.ok());
  EXPECT_NE(ErrorOf(from_set).find("unknown configuration key 'http.port' in --set"), std::string::npos)
      << ErrorOf(from_set);

  auto no_equals = LoadConfig("", {"model.path"});
  ASSERT_FALSE(no_equals.ok());
  EXPECT_NE(ErrorOf(no_equals).find("expected section.key=value"), std::string::npos) << ErrorOf(no_equals);
}

TEST(ConfigTest, NumbersMustBeWholeNumbersInRange) {
  struct Case {
    std::string set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"memory.margin=0.1x", "memory.margin = '0.1x': expected a number in [0, 1)"},
      {"memory.margin=1", "memory.margin = '1': expected a number in [0, 1)"},
      {"memory.margin=", "memory.margin = '': expected"},
      {"memory.cuda_memory_fraction=0.5GiB", "memory.cuda_memory_fraction = '0.5GiB'"},
      {"memory.cuda_memory_fraction=1.5", "memory.cuda_memory_fraction = '1.5'"},
      {"scheduler.max_batch_size=12abc", "scheduler.max_batch_size = '12abc': expected an integer"},
      {"scheduler.max_batch_size=0", "scheduler.max_batch_size = 0: must be >= 1"},
      {"scheduler.max_batch_size=99999999999999999999",
       "scheduler.max_batch_size = 99999999999999999999: must be <= 1048576"},
      {"shutdown.drain_timeout_s=-1", "must be >= 0"},
      {"storage.sync=yes", "storage.sync = 'yes': expected true or false"},
      {"memory.plan=maybe", "memory.plan = 'maybe': expected true or false"},
      {"model.fallback_device=gpu", "expected auto, cpu or none"},
      {"model.autocast=int8", "expected bf16, fp16 or empty"},
      {"admission.too_long=split", "expected reject, truncate, chunk or long_lane"},
      {"admission.max_chunks=0", "admission.max_chunks = 0: must be >= 1"},
      {"long_lane.max_tokens=-5", "must be >= 0"},
  };
  for (const Case& k : cases) {
    auto c = LoadConfig("", {"model.path=m.pt", k.set});
    ASSERT_FALSE(c.ok()) << k.set << " was accepted";
    EXPECT_NE(ErrorOf(c).find(k.message), std::string::npos) << k.set << ": " << ErrorOf(c);
  }
  auto ok = LoadConfig("", {"model.path=m.pt", "memory.margin=0.25", "memory.cuda_memory_fraction=1"});
  ASSERT_TRUE(ok.ok()) << ErrorOf(ok);
  EXPECT_DOUBLE_EQ(ok->memory.margin, 0.25);
  EXPECT_DOUBLE_EQ(ok->memory.cuda_memory_fraction, 1.0);
}

// (0, 1]: a floor of 0 would accept any drift, so it is refused like 1.5.
TEST(ConfigTest, MinCosineIsAFloorInZeroExclusiveToOne) {
  for (const std::string v : {"0", "-0.1", "1.5", "high"}) {
    auto c = LoadConfig("", {"model.path=m.pt", "model.min_cosine=" + v});
    ASSERT_FALSE(c.ok()) << v << " was accepted";
    EXPECT_NE(ErrorOf(c).find("model.min_cosine = '" + v + "': expected a number in (0, 1]"), std::string::npos)
        << ErrorOf(c);
  }
  auto defaults = LoadConfig("", {"model.path=m.pt"});
  ASSERT_TRUE(defaults.ok()) << ErrorOf(defaults);
  EXPECT_DOUBLE_EQ(defaults->model.min_cosine, 0.999);
  auto one = LoadConfig("", {"model.path=m.pt", "model.min_cosine=1"});
  ASSERT_TRUE(one.ok()) << ErrorOf(one);
  EXPECT_DOUBLE_EQ(one->model.min_cosine, 1.0);
}

TEST(ConfigTest, BucketBoundsComeAsAYamlListOrCommaSeparated) {
  ConfigFile list("model:\n  path: m.pt\nscheduler:\n  bucket_bounds: [16, 64, 512]\n");
  auto from_list = LoadConfig(list.path(), {});
  ASSERT_TRUE(from_list.ok()) << ErrorOf(from_list);
  EXPECT_EQ(from_list->scheduler.bucket_bounds, (std::vector<int>{16, 64, 512}));

  auto from_set = LoadConfig(list.path(), {"scheduler.bucket_bounds=32,128,512"});
  ASSERT_TRUE(from_set.ok()) << ErrorOf(from_set);
  EXPECT_EQ(from_set->scheduler.bucket_bounds, (std::vector<int>{32, 128, 512}));

  auto bad = LoadConfig("", {"model.path=m.pt", "scheduler.bucket_bounds=16,x,512"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(ErrorOf(bad).find("scheduler.bucket_bounds = 'x'"), std::string::npos) << ErrorOf(bad);

  ConfigFile nested("model:\n  path: m.pt\nscheduler:\n  bucket_bounds: [[16], 512]\n");
  auto not_scalars = LoadConfig(nested.path(), {});
  ASSERT_FALSE(not_scalars.ok());
  EXPECT_NE(ErrorOf(not_scalars).find("expected a list of scalars"), std::string::npos) << ErrorOf(not_scalars);
}

TEST(ConfigTest, BucketBoundsAreCheckedAgainstTheModel) {
  executor::ModelManifest manifest;
  manifest.max_tokens = 512;
  auto config = [](std::vector<std::string> sets) {
    sets.push_back("model.path=m.pt");
    auto c = LoadConfig("", sets);
    EXPECT_TRUE(c.ok()) << ErrorOf(c);
    return *c;
  };
  auto defaults = BucketBounds(config({}), manifest);
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(*defaults, (std::vector<int>{16, 32, 64, 128, 256, 512})) << "powers of two up to max_tokens";

  auto lower = BucketBounds(config({"scheduler.max_tokens=128"}), manifest);
  ASSERT_TRUE(lower.ok()) << lower.status();
  EXPECT_EQ(lower->back(), 128);

  auto above = BucketBounds(config({"scheduler.max_tokens=1024"}), manifest);
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.status().message().find("exceeds the model's max_tokens=512"), std::string::npos) << above.status();

  auto unordered = BucketBounds(config({"scheduler.bucket_bounds=64,32,512"}), manifest);
  ASSERT_FALSE(unordered.ok());
  EXPECT_NE(unordered.status().message().find("scheduler.bucket_bounds: "), std::string::npos) << unordered.status();
  EXPECT_NE(unordered.status().message().find("strictly increasing"), std::string::npos) << unordered.status();

  auto short_last = BucketBounds(config({"scheduler.bucket_bounds=32,256"}), manifest);
  ASSERT_FALSE(short_last.ok());
  EXPECT_NE(short_last.status().message().find("max_tokens is 512"), std::string::npos) << short_last.status();
}

TEST(ConfigTest, LibrdkafkaPropertiesPassThroughVerbatim) {
  ConfigFile file(
      "model:\n  path: m.pt\n"
      "kafka:\n  consumer:\n    fetch.max.bytes: 1048576\n    session.timeout.ms: 6000\n"
      "  producer:\n    linger.ms: 20\n");
  auto c = LoadConfig(file.path(), {"kafka.consumer.session.timeout.ms=7000", "kafka.producer.acks=all"});
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_EQ(c->kafka.consumer.at("fetch.max.bytes"), "1048576");
  EXPECT_EQ(c->kafka.consumer.at("session.timeout.ms"), "7000") << "--set over the file";
  EXPECT_EQ(c->kafka.producer.at("linger.ms"), "20");
  EXPECT_EQ(c->kafka.producer.at("acks"), "all");
}

// A value for every key, none of them the default, so a key the dump
// forgets, or one that does not read back, changes the reloaded dump.
std::vector<std::string> EveryKeyChanged() {
  return {"model.path=/models/m.pt",
          "model.manifest=/models/manifest.json",
          "model.device=cpu-budget:256MiB",
          "model.fallback_device=none",
          "model.autocast=bf16",
          "model.min_cosine=0.99",
          "model.max_score_diff=0.05",
          "model.threads=3",
          "model.mkl_dispatch=vendor",
          "model.op_libraries=/lib/a.so,/lib/b.so",
          "memory.plan=false",
          "memory.margin=0.2",
          "memory.cuda_memory_fraction=0.5",
          "memory.cuda_budget=20GiB",
          "memory.cpu_block_cache=1GiB",
          "kafka.brokers=broker-1:9092,broker-2:9092",
          "kafka.group_id=g",
          "kafka.jobs_topic=in",
          "kafka.reply_topic=out",
          "kafka.dead_letter_topic=dlq",
          "kafka.create_topics=true",
          "kafka.topic_partitions=6",
          "kafka.startup_wait_s=40",
          "kafka.consumer.fetch.max.bytes=1000000",
          "kafka.producer.linger.ms=20",
          "limits.max_message_bytes=4096",
          "limits.max_depth=8",
          "limits.max_meta_bytes=100",
          "limits.max_text_bytes=4096",
          "limits.max_chunk_text_bytes=2097152",
          "limits.max_image_bytes=65536",
          "limits.max_image_pixels=1000000",
          "inputs.image_roots=/srv/photos,/tmp",
          "inputs.url_timeout=2.5",
          "inputs.url_max_redirects=1",
          "recovery.max_attempts=5",
          "admission.too_long=chunk",
          "admission.chunk_overlap=16",
          "admission.max_chunks=8",
          "long_lane.max_tokens=1024",
          "scheduler.bucket_bounds=32,128",
          "scheduler.max_tokens=128",
          "scheduler.tokens_per_batch=4096",
          "scheduler.max_batch_size=16",
          "scheduler.max_batch_delay_ms=7",
          "scheduler.formation=arrival",
          "scheduler.max_padding=0.25",
          "scheduler.extra_padding_tokens=7",
          "scheduler.max_queued_jobs=99",
          "scheduler.max_queued_tokens=9999",
          "scheduler.max_queued_bytes=12345",
          "tokenizer.threads=3",
          "output.encoding=ubinary",
          "limits.max_result_bytes=65536",
          "output.int8_ranges=/models/ranges.json",
          "storage.path=/data/store",
          "storage.sync=true",
          "http.listen=0.0.0.0:9500",
          "shutdown.drain_timeout_s=9",
          "health.executor_stall_s=7",
          "health.startup_timeout_s=60"};
}

TEST(ConfigTest, TheDumpNamesEveryKeyAndReadsBackToTheSameConfiguration) {
  std::set<std::string> changed;
  for (const std::string& kv : EveryKeyChanged()) changed.insert(kv.substr(0, kv.find('=')));
  for (const std::string& key : ConfigKeys()) {
    EXPECT_TRUE(changed.count(key)) << key << " is a new key: add it to EveryKeyChanged";
  }
  auto c = LoadConfig("", EveryKeyChanged());
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  const std::string dump = DumpConfig(*c);
  const YAML::Node root = YAML::Load(dump);
  for (const std::string& key : ConfigKeys()) {
    const std::string section = key.substr(0, key.find('.'));
    const std::string name = key.substr(key.find('.') + 1);
    EXPECT_TRUE(root[section] && root[section][name]) << key << " missing from the dump:\n" << dump;
  }
  ConfigFile file(dump);
  auto again = LoadConfig(file.path(), {});
  ASSERT_TRUE(again.ok()) << ErrorOf(again) << "\n" << dump;
  EXPECT_EQ(DumpConfig(*again), dump);
  EXPECT_EQ(again->model.op_libraries, (std::vector<std::string>{"/lib/a.so", "/lib/b.so"}));
  EXPECT_EQ(again->scheduler.bucket_bounds, (std::vector<int>{32, 128}));
  EXPECT_EQ(again->kafka.consumer.at("fetch.max.bytes"), "1000000");
  EXPECT_EQ(again->kafka.producer.at("linger.ms"), "20");
  EXPECT_DOUBLE_EQ(again->memory.margin, 0.2);
  EXPECT_EQ(again->scheduler.max_queued_bytes, 12345u);
}

// QINFER_<SECTION>_<KEY>, dots as underscores.
std::string EnvNameOf(const std::string& key) {
  std::string name = "QINFER_";
  for (char ch : key) name += ch == '.' ? '_' : char(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

// `key: value` as a YAML file; a comma-separated value of a list key as a
// YAML list, a property as a map under its section.
std::string YamlOf(const std::string& key, const std::string& value, bool list) {
  const std::string section = key.substr(0, key.find('.'));
  std::string leaf = key.substr(key.find('.') + 1);
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << section << YAML::Value << YAML::BeginMap;
  for (const std::string& properties : ConfigPropertySections()) {
    if (key.rfind(properties + ".", 0) == 0) {
      out << YAML::Key << properties.substr(properties.find('.') + 1) << YAML::Value << YAML::BeginMap;
      leaf = key.substr(properties.size() + 1);
      out << YAML::Key << leaf << YAML::Value << value << YAML::EndMap << YAML::EndMap << YAML::EndMap;
      return out.c_str();
    }
  }
  out << YAML::Key << leaf << YAML::Value;
  if (list) {
    std::vector<std::string> items;
    for (size_t start = 0; start <= value.size();) {
      const size_t comma = std::min(value.find(',', start), value.size());
      items.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
    out << YAML::Flow << items;
  } else {
    out << value;
  }
  out << YAML::EndMap << YAML::EndMap;
  return out.c_str();
}

// Issue 19 item 3: every key, the properties included, is read the same
// from a file, the environment and --set, and its dump reads back to it.
TEST(ConfigTest, EveryKeyRoundTripsThroughFileEnvironmentSetAndTheDump) {
  auto defaults = LoadConfig("", {}, ConfigUse::kClient);
  ASSERT_TRUE(defaults.ok()) << ErrorOf(defaults);
  for (const std::string& kv : EveryKeyChanged()) {
    const std::string key = kv.substr(0, kv.find('='));
    const std::string value = kv.substr(kv.find('=') + 1);
    auto from_set = LoadConfig("", {kv}, ConfigUse::kClient);
    ASSERT_TRUE(from_set.ok()) << kv << ": " << ErrorOf(from_set);
    const std::string dump = DumpConfig(*from_set);
    EXPECT_NE(dump, DumpConfig(*defaults)) << kv << " changed nothing";
    {
      ScopedEnv env(EnvNameOf(key), value);
      auto from_env = LoadConfig("", {}, ConfigUse::kClient);
      ASSERT_TRUE(from_env.ok()) << EnvNameOf(key) << ": " << ErrorOf(from_env);
      EXPECT_EQ(DumpConfig(*from_env), dump) << "environment " << EnvNameOf(key);
    }
    const bool list = key == "model.op_libraries" || key == "scheduler.bucket_bounds";
    ConfigFile file(YamlOf(key, value, list));
    auto from_file = LoadConfig(file.path(), {}, ConfigUse::kClient);
    ASSERT_TRUE(from_file.ok()) << key << " from a file: " << ErrorOf(from_file);
    EXPECT_EQ(DumpConfig(*from_file), dump) << key << " from a file";
    // The default storage.path is relative: from a file it would resolve
    // against the file's directory.
    ConfigFile dumped(dump);
    auto again = LoadConfig(dumped.path(), {"storage.path=" + from_set->storage.path}, ConfigUse::kClient);
    ASSERT_TRUE(again.ok()) << key << " from its dump: " << ErrorOf(again);
    EXPECT_EQ(DumpConfig(*again), dump) << key << " from its dump";
  }
}

TEST(ConfigTest, PropertiesComeFromTheEnvironmentUnderTheirSection) {
  ScopedEnv password("QINFER_KAFKA_CONSUMER_SASL_PASSWORD", "hunter2");
  ScopedEnv linger("QINFER_KAFKA_PRODUCER_LINGER_MS", "5");
  auto c = LoadConfig("", {"kafka.producer.linger.ms=7"}, ConfigUse::kClient);
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_EQ(c->kafka.consumer.at("sasl.password"), "hunter2");
  EXPECT_EQ(c->kafka.producer.at("linger.ms"), "7") << "--set over the environment";
  EXPECT_EQ(DumpConfig(*c).find("hunter2"), std::string::npos);
}

TEST(ConfigTest, ClientCommandsNeedNoModelPath) {
  auto c = LoadConfig("", {"kafka.brokers=b:1"}, ConfigUse::kClient);
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_TRUE(c->model.path.empty());
  EXPECT_FALSE(LoadConfig("", {"kafka.brokers=b:1"}).ok()) << "serve needs model.path";
}

// The configuration table of docs/guide/configuration.md is the generated one.
TEST(ConfigTest, DocsTableIsTheGeneratedOne) {
  std::ifstream in(QINFER_CONFIGURATION_MD);
  ASSERT_TRUE(in) << "cannot read " << QINFER_CONFIGURATION_MD;
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- config-table:begin -->\n", end = "<!-- config-table:end -->";
  const size_t from = page.find(begin), to = page.find(end);
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to)
      << QINFER_CONFIGURATION_MD << " has no " << begin << "..." << end << " markers";
  const std::string table = page.substr(from + begin.size(), to - from - begin.size());
  const std::string generated = ConfigTableMarkdown();
  if (table == generated) return;
  std::istringstream a(table), b(generated);
  std::string line_a, line_b;
  int line = 0;
  while (true) {
    const bool more_a = bool(std::getline(a, line_a)), more_b = bool(std::getline(b, line_b));
    ++line;
    if (!more_a && !more_b) break;
    if (!more_a || !more_b || line_a != line_b) break;
  }
  ADD_FAILURE() << "docs/guide/configuration.md's configuration table differs from the key table in "
                << "app/src/config_keys.cc, first at line " << line << " of the table:\n- docs:      " << line_a
                << "\n+ generated: " << line_b
                << "\nRegenerate it: put the output of `build/qinfer config --print-table` between the "
                << begin.substr(0, begin.size() - 1) << " and " << end << " lines of docs/guide/configuration.md";
}

// The binary: `serve --print-config` prints the effective configuration and
// exits 0 without touching Kafka; a bad key exits 2 with the message.
std::pair<int, std::string> RunBinary(const std::string& args) {
  return testing::RunCommand(std::string(QINFER_BINARY) + " " + args + " 2>&1");
}

TEST(ConfigBinaryTest, PrintConfigShowsTheEffectiveConfigurationAndExits) {
  ConfigFile file("model:\n  path: m.pt\nkafka:\n  brokers: 192.0.2.1:1\n");
  auto [rc, out] = RunBinary("serve --print-config --config " + file.path() + " --set scheduler.max_batch_size=24");
  ASSERT_EQ(rc, 0) << out;
  const YAML::Node root = YAML::Load(out);
  EXPECT_EQ(root["scheduler"]["max_batch_size"].as<int>(), 24);
  EXPECT_EQ(root["kafka"]["brokers"].as<std::string>(), "192.0.2.1:1");
  EXPECT_EQ(root["model"]["path"].as<std::string>(),
            (std::filesystem::path(file.path()).parent_path() / "m.pt").string())
      << "a path in the file resolves against the file";
}

TEST(ConfigBinaryTest, PrintDefaultsPrintsACommentedFileThatLoadsToTheDefaults) {
  auto [rc, out] = RunBinary("config --print-defaults");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("(undocumented)"), std::string::npos) << "every key has a comment:\n" << out;
  for (const std::string& key : ConfigKeys()) {
    const std::string name = key.substr(key.find('.') + 1);
    EXPECT_NE(out.find("\n  " + name + ": "), std::string::npos) << key << " missing from:\n" << out;
  }
  // Loads as printed, with nothing added: the required model.path is marked
  // and holds a placeholder.
  EXPECT_NE(out.find("  # REQUIRED: no default; replace the placeholder\n  path: " +
                     std::string(kModelPathPlaceholder) + "\n"),
            std::string::npos)
      << out;
  ConfigFile file(out);
  auto loaded = LoadConfig(file.path(), {});
  ASSERT_TRUE(loaded.ok()) << ErrorOf(loaded) << "\n" << out;
  const std::string store = (std::filesystem::path(file.path()).parent_path() / "run/results").string();
  auto defaults = LoadConfig("", {std::string("model.path=") + kModelPathPlaceholder, "storage.path=" + store});
  ASSERT_TRUE(defaults.ok()) << ErrorOf(defaults);
  EXPECT_EQ(DumpConfig(*loaded), DumpConfig(*defaults));
  // Floats in their shortest exact form.
  EXPECT_NE(out.find("\n  margin: 0.1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  max_padding: 0.08\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("0000000"), std::string::npos) << out;
}

// The placeholder is refused by name at start-up.
TEST(ConfigBinaryTest, ServeOnThePrintedDefaultsNamesTheRequiredModelPath) {
  auto [rc, defaults] = RunBinary("config --print-defaults");
  ASSERT_EQ(rc, 0);
  ConfigFile file(defaults);
  auto [serve_rc, out] = RunBinary("serve --config " + file.path() + " --set http.listen=");
  EXPECT_EQ(serve_rc, 2) << out;
  EXPECT_NE(out.find(std::string("model.path ") + kModelPathPlaceholder + ": no such file"), std::string::npos) << out;
}

TEST(ConfigTest, FloatsDumpInTheirShortestExactForm) {
  auto c = LoadConfig(
      "", {"model.path=m.pt", "memory.margin=0.3", "scheduler.max_padding=0.07", "memory.cuda_memory_fraction=0.9"});
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  const std::string dump = DumpConfig(*c);
  for (const char* line : {"margin: 0.3\n", "max_padding: 0.07\n", "cuda_memory_fraction: 0.9\n"}) {
    EXPECT_NE(dump.find(line), std::string::npos) << line << " in:\n" << dump;
  }
  ConfigFile file(dump);
  auto again = LoadConfig(file.path(), {});
  ASSERT_TRUE(again.ok()) << ErrorOf(again);
  EXPECT_EQ(again->memory.margin, 0.3) << "exactly the same double";
  EXPECT_EQ(again->scheduler.max_padding, 0.07);
}

// http.listen's port is parsed whole: atoi read 'notaport' as 0 (an
// ephemeral port) and '94OO' as 94.
TEST(ConfigTest, HttpListenIsParsedStrictlyNamingTheKey) {
  for (const std::string bad : {"127.0.0.1:notaport", ":94OO", "127.0.0.1:94OO", "127.0.0.1:65536", "127.0.0.1:-1",
                                "127.0.0.1:", "127.0.0.1", ":9400", "127.0.0.1: 9400", "127.0.0.1:+9400"}) {
    auto c = LoadConfig("", {"model.path=m.pt", "http.listen=" + bad});
    ASSERT_FALSE(c.ok()) << bad << " was accepted";
    EXPECT_NE(ErrorOf(c).find("http.listen = '" + bad + "'"), std::string::npos) << ErrorOf(c);
  }
  for (const std::string good : {"127.0.0.1:9400", "0.0.0.0:0", "[::1]:65535", "localhost:80", ""}) {
    auto c = LoadConfig("", {"model.path=m.pt", "http.listen=" + good});
    EXPECT_TRUE(c.ok()) << good << ": " << ErrorOf(c);
  }
  auto a = ParseListenAddress("[::1]:9400");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "[::1]");
  EXPECT_EQ(a->port, 9400);
}

// Every numeric key: the whole string, a range both ways, the key named.
TEST(ConfigTest, EveryNumericKeyIsParsedWholeAndRangeChecked) {
  for (const std::string& key : ConfigKeys()) {
    auto probe = LoadConfig("", {"model.path=m.pt", key + "=12abc"});
    const bool numeric = !probe.ok() && ErrorOf(probe).find("expected an integer") != std::string::npos;
    if (!numeric) continue;
    for (const std::string bad :
         {"12abc", " 12", "+12", "1e3", "0x10", "", "99999999999999999999", "4611686018427387904"}) {
      if (bad.empty() && key == "scheduler.bucket_bounds") continue;  // empty: the default bounds
      auto c = LoadConfig("", {"model.path=m.pt", key + "=" + bad});
      ASSERT_FALSE(c.ok()) << key << "=" << bad << " was accepted";
      EXPECT_NE(ErrorOf(c).find(key), std::string::npos) << ErrorOf(c);
    }
  }
  for (const std::string key : {"memory.margin", "memory.cuda_memory_fraction", "scheduler.max_padding"}) {
    for (const std::string bad : {"nan", "inf", "-inf", " 0.1", "0.1 ", "0x0.1p0x", "1e400"}) {
      auto c = LoadConfig("", {"model.path=m.pt", key + "=" + bad});
      ASSERT_FALSE(c.ok()) << key << "=" << bad << " was accepted";
      EXPECT_NE(ErrorOf(c).find(key + " = '" + bad + "'"), std::string::npos) << ErrorOf(c);
    }
  }
  // Above the range is refused, not clamped or wrapped.
  for (const std::string set :
       {"scheduler.max_batch_size=2000000", "recovery.max_attempts=1001", "kafka.topic_partitions=4294967297",
        "limits.max_depth=10001", "model.threads=5000", "scheduler.bucket_bounds=32,2000000000"}) {
    auto c = LoadConfig("", {"model.path=m.pt", set});
    ASSERT_FALSE(c.ok()) << set << " was accepted";
    EXPECT_NE(ErrorOf(c).find("must be <= "), std::string::npos) << ErrorOf(c);
    EXPECT_NE(ErrorOf(c).find(set.substr(0, set.find('='))), std::string::npos) << ErrorOf(c);
  }
}

// Device and size errors name their key.
TEST(ConfigTest, DeviceAndSizeErrorsNameTheKey) {
  for (const std::string bad : {"tpu:0", "cpu-budget:-1GiB", "cpu-budget:lots", "gpu"}) {
    auto c = LoadConfig("", {"model.path=m.pt", "model.device=" + bad});
    ASSERT_FALSE(c.ok()) << bad << " was accepted";
    EXPECT_NE(ErrorOf(c).find("model.device = '" + bad + "': "), std::string::npos) << ErrorOf(c);
  }
  auto budget = LoadConfig("", {"model.path=m.pt", "memory.cuda_budget=20 gigs"});
  ASSERT_FALSE(budget.ok());
  EXPECT_NE(ErrorOf(budget).find("memory.cuda_budget = '20 gigs'"), std::string::npos) << ErrorOf(budget);
  EXPECT_TRUE(LoadConfig("", {"model.path=m.pt", "model.device=cpu-budget:512MiB", "memory.cuda_budget=20GiB"}).ok());
  for (const std::string bad : {"-1MiB", "lots", ""}) {
    auto cache = LoadConfig("", {"model.path=m.pt", "memory.cpu_block_cache=" + bad});
    ASSERT_FALSE(cache.ok()) << "memory.cpu_block_cache=" << bad << " was accepted";
    EXPECT_NE(ErrorOf(cache).find("memory.cpu_block_cache = '" + bad + "': expected a size (e.g. 512MiB), or 0"),
              std::string::npos)
        << ErrorOf(cache);
  }
  for (const std::string good : {"0", "256MiB", "2GiB"}) {
    EXPECT_TRUE(LoadConfig("", {"model.path=m.pt", "memory.cpu_block_cache=" + good}).ok()) << good;
  }
}

TEST(ConfigBinaryTest, ConfigPrintConfigShowsTheEffectiveConfigurationWithSecretsRedacted) {
  ConfigFile file(
      "model:\n  path: m.pt\nkafka:\n  consumer:\n    sasl.username: alice\n    sasl.password: hunter2\n"
      "  producer:\n    ssl.key.password: swordfish\n");
  auto [rc, out] = RunBinary("config --print-config --config " + file.path());
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("hunter2"), std::string::npos) << out;
  EXPECT_EQ(out.find("swordfish"), std::string::npos) << out;
  const YAML::Node root = YAML::Load(out);
  EXPECT_EQ(root["kafka"]["consumer"]["sasl.password"].as<std::string>(), "<redacted>");
  EXPECT_EQ(root["kafka"]["producer"]["ssl.key.password"].as<std::string>(), "<redacted>");
  EXPECT_EQ(root["kafka"]["consumer"]["sasl.username"].as<std::string>(), "alice");
}

TEST(ConfigTest, PathsInAFileResolveAgainstTheFileAndOthersAgainstTheCurrentDirectory) {
  ConfigFile file(
      "model:\n  path: models/m.pt\n  manifest: models/manifest.json\n  op_libraries: [ops/a.so, /abs/b.so]\n"
      "storage:\n  path: ../store\n");
  const std::filesystem::path dir = std::filesystem::path(file.path()).parent_path();
  auto c = LoadConfig(file.path(), {});
  ASSERT_TRUE(c.ok()) << ErrorOf(c);
  EXPECT_EQ(c->model.path, (dir / "models/m.pt").string());
  EXPECT_EQ(c->model.manifest, (dir / "models/manifest.json").string());
  EXPECT_EQ(c->model.op_libraries, (std::vector<std::string>{(dir / "ops/a.so").string(), "/abs/b.so"}));
  EXPECT_EQ(c->storage.path, (dir.parent_path() / "store").string());

  auto unset = LoadConfig(file.path(), {"storage.path=rel/store"});
  ASSERT_TRUE(unset.ok()) << ErrorOf(unset);
  EXPECT_EQ(unset->storage.path, "rel/store") << "--set is relative to the current directory";
  ConfigFile bare("model:\n  path: /m.pt\n");
  auto defaults = LoadConfig(bare.path(), {});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->storage.path, "run/results") << "a default the file does not set stays as documented";
}

TEST(ConfigBinaryTest, ABadValueExitsTwoNamingTheKey) {
  auto [rc, out] = RunBinary("serve --print-config --set model.path=m.pt --set memory.margin=0.1x");
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("qinfer serve: memory.margin = '0.1x'"), std::string::npos) << out;
}

TEST(ConfigBinaryTest, PrintTablePrintsTheGeneratedTable) {
  auto [rc, out] = RunBinary("config --print-table");
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out, ConfigTableMarkdown());
  for (const std::string& key : ConfigKeys()) EXPECT_NE(out.find("| `" + key + "` |"), std::string::npos) << key;
  EXPECT_NE(out.find("| `kafka.consumer.*` |"), std::string::npos);
  EXPECT_NE(out.find("| `memory.cuda_memory_fraction` | number in [0, 1] | `0`: no cap |"), std::string::npos) << out;
}

// Issue 19 item 3: the commands that talk to Kafka or a store take their
// brokers, librdkafka properties (security settings, secrets) and store
// from --config, with no model.path; a secret never appears on their
// output. The BOGUS mechanism makes librdkafka refuse the handle, so the
// message proves the configured properties reached the command's client.
TEST(ConfigBinaryTest, ClientCommandsTakeSecretPropertiesFromTheConfigAndNeverShowThem) {
  const std::string props =
      "    security.protocol: SASL_PLAINTEXT\n    sasl.mechanisms: BOGUS\n    sasl.username: alice\n"
      "    sasl.password: TOPSECRET123\n";
  ConfigFile file("kafka:\n  brokers: 127.0.0.1:1\n  reply_topic: results\n  consumer:\n" + props + "  producer:\n" +
                  props);
  ConfigFile jobs("{\"id\":\"a\",\"input_ids\":[1,2,3]}\n");
  const std::string store = (std::filesystem::path(file.path()).parent_path() / "store").string();
  struct Case {
    std::string what, args;
  };
  const std::vector<Case> cases = {
      {"submit (its producer)", "submit --no-progress --config " + file.path() + " " + jobs.path()},
      {"replay (its producer)", "replay --no-progress --config " + file.path() + " --set storage.path=" + store},
      {"replay (its dead-letter consumer)",
       "replay --no-progress --dry-run --config " + file.path() + " --dead-letter-topic dlq"},
      {"collect (its consumer)", "collect --no-progress --config " + file.path() + " --set storage.path=" + store},
  };
  for (const Case& c : cases) {
    auto [rc, out] = RunBinary(c.args);
    EXPECT_EQ(rc, 2) << c.what << "\n" << out;
    EXPECT_NE(out.find("BOGUS"), std::string::npos) << c.what << ": the configured properties were not used\n" << out;
    EXPECT_EQ(out.find("TOPSECRET123"), std::string::npos) << c.what << " shows the secret:\n" << out;
    EXPECT_EQ(out.find("model.path"), std::string::npos) << c.what << " asks for a model:\n" << out;
  }
}

TEST(ConfigBinaryTest, ResultsAndCollectTakeTheStoreFromTheConfigAndStillNeedOne) {
  ConfigFile file("storage:\n  path: no-such-store\n");
  const std::string store = (std::filesystem::path(file.path()).parent_path() / "no-such-store").string();
  auto [rc, out] = RunBinary("results --count --config " + file.path());
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find(store), std::string::npos) << "storage.path, resolved against the file:\n" << out;
  auto [flag_rc, flag_out] = RunBinary("results --count --config " + file.path() + " --store " + store + "-flag");
  EXPECT_EQ(flag_rc, 2) << flag_out;
  EXPECT_NE(flag_out.find(store + "-flag"), std::string::npos) << "--store over the configuration:\n" << flag_out;
  for (const std::string command : {"results --count", "collect --reply-topic r"}) {
    auto [none_rc, none] = RunBinary(command);
    EXPECT_EQ(none_rc, 2) << command << "\n" << none;
    EXPECT_NE(none.find("--store is required"), std::string::npos) << command << "\n" << none;
  }
}

}  // namespace
}  // namespace qinfer::app
