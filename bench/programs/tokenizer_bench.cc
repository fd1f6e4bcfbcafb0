// Benchmark: qinfer::tokenizer::Tokenizer::Encode on one thread, over a file
// of texts (JSONL with a "text" field, e.g. model/make_texts.py's real
// English paragraphs). Every round encodes every text --passes times (so
// that a round lasts long enough to time on a shared machine); the figures
// are medians over the rounds and go to a JSON file whose "definitions" say
// what each counts.
//
//   .venv/bin/python model/make_texts.py --count 1000 --out build/bench-texts.jsonl
//   build/bench/tokenizer_bench --tokenizer PATH/tokenizer.json
//       --texts build/bench-texts.jsonl [--rounds 5] [--passes 10] [--warmup 1]
//       [--out FILE]
#include <CLI/CLI.hpp>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qinfer/tokenizer/tokenizer.h"

namespace {

using qinfer::tokenizer::Tokenizer;

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "tokenizer_bench: " << message << "\n";
  std::exit(2);
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Round {
  double seconds = 0;
  double cpu_seconds = 0;
  uint64_t tokens = 0;
  uint64_t bytes = 0;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Round EncodeAll(const Tokenizer& tokenizer, const std::vector<std::string>& texts, int passes) {
  Round round;
  const double cpu0 = CpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int pass = 0; pass < passes; ++pass) {
    for (const std::string& text : texts) {
      auto encoding = tokenizer.Encode(text);
      if (!encoding.ok()) Fail(encoding.status().ToString());
      round.tokens += encoding->length();
      round.bytes += text.size();
    }
  }
  round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  round.cpu_seconds = CpuSeconds() - cpu0;
  return round;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tokenizer::Encode throughput on one thread"};
  std::string tokenizer_path, texts_path, out;
  int rounds = 5, passes = 10, warmup = 1;
  app.add_option("--tokenizer", tokenizer_path, "tokenizer.json")->required();
  app.add_option("--texts", texts_path, "JSONL file of {\"text\": ...} lines")->required();
  app.add_option("--rounds", rounds, "timed rounds; medians are reported")->check(CLI::PositiveNumber);
  app.add_option("--passes", passes, "times every text is encoded in one round")->check(CLI::PositiveNumber);
  app.add_option("--warmup", warmup, "untimed rounds first")->check(CLI::NonNegativeNumber);
  app.add_option("--out", out, "JSON file for the figures (default: stdout only)");
  CLI11_PARSE(app, argc, argv);

  auto tokenizer = Tokenizer::Load(tokenizer_path);
  if (!tokenizer.ok()) Fail(tokenizer.status().ToString());
  std::vector<std::string> texts;
  {
    std::ifstream in(texts_path);
    if (!in) Fail("cannot read " + texts_path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      texts.push_back(nlohmann::json::parse(line).at("text").get<std::string>());
    }
  }
  if (texts.empty()) Fail(texts_path + " holds no texts");

  for (int i = 0; i < warmup; ++i) EncodeAll(**tokenizer, texts, 1);
  std::vector<double> seconds, cpu_seconds;
  Round last;
  for (int i = 0; i < rounds; ++i) {
    last = EncodeAll(**tokenizer, texts, passes);
    seconds.push_back(last.seconds);
    cpu_seconds.push_back(last.cpu_seconds);
  }
  const double s = Median(seconds), cpu = Median(cpu_seconds);
  const double n = double(texts.size()) * passes, tokens = double(last.tokens);
  nlohmann::json report = {
      {"definitions",
       {{"texts", "texts in --texts; every round encodes each `passes` times"},
        {"tokens", "tokens of one round: Encoding::length(), special tokens included"},
        {"bytes", "UTF-8 bytes of text of one round"},
        {"seconds", "median wall time of a round (Encode only: loading and parsing are outside)"},
        {"cpu_seconds", "median process CPU time of a round: close to seconds on an idle machine"},
        {"tokens_per_second", "tokens / seconds"},
        {"texts_per_second", "texts x passes / seconds"},
        {"tokens_per_cpu_second", "tokens / cpu_seconds: little affected by other processes"},
        {"microseconds_per_text", "seconds / (texts x passes), in microseconds"}}},
      {"tokenizer", tokenizer_path},
      {"texts_file", texts_path},
      {"rounds", rounds},
      {"passes", passes},
      {"threads", 1},
      {"texts", texts.size()},
      {"tokens", last.tokens},
      {"bytes", last.bytes},
      {"seconds", s},
      {"cpu_seconds", cpu},
      {"tokens_per_second", tokens / s},
      {"texts_per_second", n / s},
      {"tokens_per_cpu_second", tokens / cpu},
      {"microseconds_per_text", s / n * 1e6},
      {"seconds_per_round", seconds},
  };
  std::cout << report.dump(2) << "\n";
  if (!out.empty()) {
    std::ofstream file(out);
    if (!(file << report.dump(2) << "\n")) Fail("cannot write " + out);
  }
  return 0;
}
