// qinfer_image_prep_tool: the image module's decode and preprocessing as a
// command, for the parity test against Pillow and transformers
// (tests/python/test_image_prep.py) and the benchmark (bench/images/).
//
//   qinfer_image_prep_tool --out DIR [--processor JSON] [--max-pixels N]
//       [--max-bytes N] [--downscale] [--repeat N] FILE...
//
// For each FILE (named by its basename B): DIR/B.rgb.npy (uint8, H x W x 3,
// what Decode gives), DIR/B.pv.npy (float32, 3 x H x W, what Process gives,
// with --processor), or DIR/B.error.txt ("<status code>\t<label>\t<message>").
// --repeat N: decodes and processes each file N more times and prints one
// JSON line per file with the median seconds of decode and of process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "qinfer/image/decode.h"
#include "qinfer/image/processor.h"

namespace {

using qinfer::image::Decode;
using qinfer::image::ImageLimits;
using qinfer::image::ImageProcessor;

void WriteNpy(const std::string& path, const char* dtype, const std::vector<int64_t>& shape, const void* data,
              size_t bytes) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  }
  std::string header = "{'descr': '" + std::string(dtype) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  const uint16_t length = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(reinterpret_cast<const char*>(&length), 2);
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Usage() {
  std::cerr << "usage: qinfer_image_prep_tool --out DIR [--processor JSON] [--max-pixels N] [--max-bytes N] "
               "[--downscale] [--repeat N] FILE...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_dir, processor_path;
  ImageLimits limits;
  bool downscale = false;
  int repeat = 0;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--out") out_dir = next();
    else if (arg == "--processor") processor_path = next();
    else if (arg == "--max-pixels") limits.max_pixels = std::stoll(next());
    else if (arg == "--max-bytes") limits.max_bytes = std::stoull(next());
    else if (arg == "--downscale") downscale = true;
    else if (arg == "--repeat") repeat = std::stoi(next());
    else if (arg.rfind("--", 0) == 0) return Usage();
    else files.push_back(arg);
  }
  if (out_dir.empty() || files.empty()) return Usage();
  std::optional<ImageProcessor> processor;
  if (!processor_path.empty()) {
    auto p = ImageProcessor::FromFile(processor_path);
    if (!p.ok()) {
      std::cerr << p.status() << "\n";
      return 1;
    }
    processor = std::move(*p);
  }
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    const std::string base = out_dir + "/" + Basename(file);
    auto image = Decode(bytes, limits, downscale);
    if (!image.ok()) {
      std::ofstream(base + ".error.txt") << absl::StatusCodeToString(image.status().code()) << "\t"
                                         << qinfer::image::DecodeFailureLabel(image.status()) << "\t"
                                         << image.status().message();
      continue;
    }
    WriteNpy(base + ".rgb.npy", "|u1", {image->height, image->width, 3}, image->rgb.data(), image->rgb.size());
    if (!processor) continue;
    auto pv = processor->Process(*image);
    if (!pv.ok()) {
      std::ofstream(base + ".error.txt") << absl::StatusCodeToString(pv.status().code()) << "\tprocess\t"
                                         << pv.status().message();
      continue;
    }
    WriteNpy(base + ".pv.npy", "<f4", {pv->channels, pv->height, pv->width}, pv->values.data(),
             pv->values.size() * sizeof(float));
    std::vector<double> decode_s, process_s;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto again = Decode(bytes, limits, downscale);
      const auto t1 = std::chrono::steady_clock::now();
      auto values = processor->Process(*again);
      const auto t2 = std::chrono::steady_clock::now();
      decode_s.push_back(std::chrono::duration<double>(t1 - t0).count());
      process_s.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
    if (repeat > 0) {
      std::printf("{\"file\": \"%s\", \"decode_s\": %.6f, \"process_s\": %.6f}\n", Basename(file).c_str(),
                  Median(decode_s), Median(process_s));
    }
  }
  return 0;
}
