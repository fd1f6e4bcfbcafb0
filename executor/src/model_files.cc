#include "model_files.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <filesystem>

#include "absl/strings/str_format.h"
#include "qinfer/core/logging.h"
#include "qinfer/executor/model_digest.h"

namespace qinfer::executor {
namespace {

// A CPU package's compiled code fits the CPU and the thread count it was
// made for (what the manifest records, where it does): its vector code
// and prepacked weights are for one CPU, and Inductor wrote its OpenMP thread
// count into its loops. Anything else is refused, never run.
absl::Status FitsThisCpu(const std::string& key, const ModelManifest::Package& p, const RunnerOptions& options) {
  if (!p.cpu_capability.empty() && p.cpu_capability != CpuCapability()) {
    return absl::FailedPreconditionError(
        "model.path " + options.model_path + ": the package " + key + " was compiled for the CPU capability " +
        p.cpu_capability + ", but this CPU's is " + CpuCapability() +
        " (its vector code and prepacked weights are specific to a CPU): export it again on this machine "
        "(model/export_model.py or model/export_hf.py --format aoti)");
  }
  const int threads = options.intra_op_threads > 0 ? options.intra_op_threads : int(at::get_num_threads());
  if (p.threads > 0 && p.threads != threads) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "model.path %s: the package %s was compiled for %d OpenMP threads, but the executor runs %d "
        "(model.threads, or one per core): Inductor fixes the thread count when it compiles; set "
        "model.threads: %d, or export again with --threads %d",
        options.model_path, key, p.threads, threads, p.threads, threads));
  }
  return absl::OkStatus();
}

// An aoti export runs one package per device kind and precision: the
// primary's (kind of `torch_device`, `precision`: model.autocast) and the
// plain CPU one (cpu/float32) of the fallback and the device overrides.
absl::StatusOr<ModelFile> FileFor(const ModelManifest& m, const RunnerOptions& options,
                                  const std::string& torch_device, std::optional<at::ScalarType> precision) {
  if (m.format != "aoti") return ModelFile{options.model_path, "", false};
  const std::string kind = torch_device.rfind("cuda", 0) == 0 ? "cuda" : "cpu";
  const std::string key = kind + "/" + DtypeName(precision);
  if (auto it = m.packages.find(key); it != m.packages.end()) {
    const ModelManifest::Package& p = it->second;
    if (kind == "cpu") {
      if (absl::Status fits = FitsThisCpu(key, p, options); !fits.ok()) return fits;
    }
    return ModelFile{p.path, p.digest, true};
  }
  std::string have;
  for (const auto& [k, p] : m.packages) have += (have.empty() ? "" : ", ") + k;
  return absl::FailedPreconditionError(
      "model.path " + options.model_path + " is an aoti export with the packages [" + have + "]; device " +
      options.device + (options.autocast.empty() ? "" : " with model.autocast " + options.autocast) +
      " needs the package " + key + " (an AOTInductor package's device and precision are fixed when it is " +
      "compiled): export it with model/export_model.py --format aoti --devices " + kind + " --dtypes " +
      DtypeName(precision) + (kind == "cuda" ? " on a machine with CUDA" : "") +
      " (model/export_minilm.py for MiniLM), or run on a device and precision the export has");
}

// The manifest of model.path, its digest checked against the file's own: the
// digest every result carries and the memory plan is keyed by is the file's,
// so a model file replaced under an old manifest is refused, not run under
// the old file's name.
absl::StatusOr<ModelManifest> ManifestOf(RunnerOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(options.model_path, ec)) {
    return absl::NotFoundError("model.path " + options.model_path +
                               ": no such file (a TorchScript model.pt, or the cpu/float32 package of an aoti "
                               "export; model/export_model.py writes either)");
  }
  if (options.manifest_path.empty()) {
    options.manifest_path = (fs::path(options.model_path).parent_path() / "manifest.json").string();
  }
  absl::StatusOr<ModelManifest> manifest = ModelManifest::Load(options.manifest_path);
  if (!manifest.ok()) return manifest.status();
  absl::StatusOr<std::string> digest = FileDigest(options.model_path);
  if (!digest.ok()) return digest.status();
  if (!manifest->digest.empty() && manifest->digest != *digest) {
    return absl::FailedPreconditionError(
        "model.path " + options.model_path + " has digest " + *digest + ", but its manifest " + options.manifest_path +
        " says " + manifest->digest +
        ": the model file was replaced without its manifest; export the model again with its manifest "
        "(model/export_model.py, or model/check_model.py for a model of your own) or set model.manifest "
        "to this file's manifest");
  }
  manifest->digest = *digest;
  if (manifest->format == "aoti" && manifest->torch_version != TorchVersion()) {
    return absl::FailedPreconditionError("model manifest " + options.manifest_path +
                                         ": the aoti export was made by torch '" + manifest->torch_version +
                                         "', but this qinfer runs libtorch " + TorchVersion() +
                                         ": an AOTInductor package runs only on the torch that compiled it; "
                                         "export it again with this torch (the project's .venv)");
  }
  return manifest;
}

}  // namespace

std::string DtypeName(std::optional<at::ScalarType> precision) {
  if (!precision) return "float32";
  return *precision == at::kBFloat16 ? "bfloat16" : "float16";
}

absl::StatusOr<ResolvedModel> ResolveModel(RunnerOptions& options) {
  ResolvedModel r;
  absl::StatusOr<ModelManifest> manifest = ManifestOf(options);
  if (!manifest.ok()) return manifest.status();
  r.manifest = *std::move(manifest);
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(options.device);
  if (!spec.ok()) return spec.status();
  r.spec = *spec;
  if (options.autocast == "bf16") {
    r.autocast = at::kBFloat16;
  } else if (options.autocast == "fp16") {
    r.autocast = at::kHalf;
  } else if (!options.autocast.empty()) {
    return absl::InvalidArgumentError("model.autocast '" + options.autocast + "': expected bf16, fp16 or empty");
  }
  if (!options.fallback_device.empty() && options.fallback_device != "cpu") {
    return absl::InvalidArgumentError("model.fallback_device '" + options.fallback_device +
                                      "': only cpu (or empty for none) is supported");
  }
  // Chosen before any device is touched: a missing package is refused the
  // same on a machine without the device.
  absl::StatusOr<ModelFile> primary = FileFor(r.manifest, options, r.spec.torch_device, r.autocast);
  if (!primary.ok()) return primary.status();
  r.primary_file = *std::move(primary);
  absl::StatusOr<ModelFile> cpu = FileFor(r.manifest, options, "cpu", std::nullopt);
  if (!cpu.ok()) return cpu.status();
  r.cpu_file = *std::move(cpu);
  // What each package that will run was compiled for, once per package.
  for (const auto& [key, p] : r.manifest.packages) {
    if (p.path != r.primary_file.path && p.path != r.cpu_file.path) continue;
    Logger("executor").Info("event=aoti_package package=%s cpu_capability=%s threads=%d inductor=%s", key,
                            p.cpu_capability.empty() ? "-" : p.cpu_capability, p.threads,
                            p.inductor.empty() ? "-" : p.inductor);
  }
  return r;
}

absl::Status LoadOpLibraries(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();
      return absl::InvalidArgumentError("cannot load op library " + path + ": " +
                                        (why != nullptr ? why : "unknown dlopen error"));
    }
    Logger("executor").Info("event=op_library_loaded path=%s", path);
  }
  return absl::OkStatus();
}

}  // namespace qinfer::executor
