// ImageProcessor::FromJson: the saved image processor's JSON read as
// transformers 5.24 reads it (BaseImageProcessor._set_attributes: a key
// missing or null takes the class's default; _standardize_kwargs and
// get_size_dict for the sizes; validate_preprocess_arguments' checks).
// No torch here.
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "qinfer/image/processor.h"

namespace qinfer::image {
namespace {

using json = nlohmann::json;
using Config = ImageProcessor::Config;

constexpr float kClipMean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
constexpr float kClipStd[3] = {0.26862954f, 0.26130258f, 0.27577711f};

// The class attributes of each implemented PIL-backend class, as a JSON
// object the file's keys override (default_to_square apart: it decides
// how an int size reads).
struct ClassDefaults {
  const char* type;
  const char* defaults;
};
constexpr ClassDefaults kClasses[] = {
    {"CLIPImageProcessor",
     R"({"resample": 3, "size": {"shortest_edge": 224}, "default_to_square": false,
         "crop_size": {"height": 224, "width": 224}, "do_resize": true, "do_center_crop": true,
         "do_rescale": true, "do_normalize": true, "mean": "clip"})"},
    {"SiglipImageProcessor",
     R"({"resample": 3, "size": {"height": 224, "width": 224}, "default_to_square": false,
         "do_resize": true, "do_rescale": true, "do_normalize": true, "mean": "half"})"},
    {"ViTImageProcessor",
     R"({"resample": 2, "size": {"height": 224, "width": 224}, "default_to_square": true,
         "do_resize": true, "do_rescale": true, "do_normalize": true, "mean": "half"})"},
    {"BitImageProcessor",
     R"({"resample": 3, "size": {"shortest_edge": 224}, "default_to_square": false,
         "crop_size": {"height": 224, "width": 224}, "do_resize": true, "do_center_crop": true,
         "do_rescale": true, "do_normalize": true, "mean": "clip"})"},
    {"ConvNextImageProcessor",
     R"({"resample": 3, "size": {"shortest_edge": 384}, "default_to_square": false,
         "do_resize": true, "do_rescale": true, "do_normalize": true, "mean": "half",
         "crop_pct": 0.875})"},
};

// ImagesKwargs' keys, the service keys, and the classes' own.
const std::set<std::string>& KnownKeys() {
  static const std::set<std::string> keys = {
      "do_convert_rgb", "do_resize", "size", "default_to_square", "crop_size", "resample", "do_rescale",
      "rescale_factor", "do_normalize", "image_mean", "image_std", "do_pad", "pad_size", "do_center_crop",
      "data_format", "input_data_format", "device", "return_tensors", "disable_grouping", "image_seq_length",
      "image_processor_type", "processor_class", "feature_extractor_type", "_valid_processor_keys",
      "crop_pct", "use_square_size"};
  return keys;
}

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("image processor: ", message));
}

// "CLIPImageProcessorPil" / "CLIPImageProcessor" / "CLIPFeatureExtractor".
absl::StatusOr<const ClassDefaults*> FindClass(const json& j) {
  std::string name;
  if (j.contains("image_processor_type") && j["image_processor_type"].is_string()) {
    name = j["image_processor_type"].get<std::string>();
  } else if (j.contains("feature_extractor_type") && j["feature_extractor_type"].is_string()) {
    name = j["feature_extractor_type"].get<std::string>();
    if (const size_t at = name.rfind("FeatureExtractor"); at != std::string::npos) {
      name.replace(at, std::string("FeatureExtractor").size(), "ImageProcessor");
    }
  } else {
    return Invalid("no image_processor_type (or feature_extractor_type) names the class");
  }
  if (name.size() > 3 && name.compare(name.size() - 3, 3, "Pil") == 0) name.resize(name.size() - 3);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "Fast") == 0) name.resize(name.size() - 4);
  for (const ClassDefaults& c : kClasses) {
    if (name == c.type) return &c;
  }
  std::vector<std::string> known;
  for (const ClassDefaults& c : kClasses) known.emplace_back(c.type);
  return Invalid(absl::StrCat("image_processor_type \"", name, "\" is not implemented (implemented: ",
                              absl::StrJoin(known, ", "), ")"));
}

// get_size_dict: an int (square, or shortest_edge when not
// default_to_square), a [height, width] list, or one of the dicts.
absl::Status ReadSize(const json& v, bool default_to_square, absl::string_view key, Config* c, bool crop) {
  int64_t* height = crop ? &c->crop_height : &c->height;
  int64_t* width = crop ? &c->crop_width : &c->width;
  if (v.is_number_integer()) {
    if (default_to_square) {
      *height = *width = v.get<int64_t>();
    } else {
      c->shortest_edge = v.get<int64_t>();
    }
    return absl::OkStatus();
  }
  if (v.is_array() && v.size() == 2 && v[0].is_number_integer() && v[1].is_number_integer()) {
    *height = v[0].get<int64_t>();
    *width = v[1].get<int64_t>();
    return absl::OkStatus();
  }
  if (!v.is_object()) return Invalid(absl::StrCat(key, " must be an int, a [height, width] list or an object"));
  std::set<std::string> names;
  for (const auto& [name, value] : v.items()) {
    if (!value.is_number_integer() || value.get<int64_t>() <= 0) {
      return Invalid(absl::StrCat(key, ".", name, " must be a positive int"));
    }
    names.insert(name);
  }
  const auto get = [&](const char* name) { return v[name].get<int64_t>(); };
  if (names == std::set<std::string>{"height", "width"}) {
    *height = get("height");
    *width = get("width");
  } else if (!crop && names == std::set<std::string>{"shortest_edge"}) {
    c->shortest_edge = get("shortest_edge");
  } else if (!crop && names == std::set<std::string>{"shortest_edge", "longest_edge"}) {
    c->shortest_edge = get("shortest_edge");
    c->longest_edge = get("longest_edge");
  } else if (!crop && names == std::set<std::string>{"max_height", "max_width"}) {
    c->max_height = get("max_height");
    c->max_width = get("max_width");
  } else {
    return Invalid(absl::StrCat(key, " with keys {", absl::StrJoin(names, ", "), "} is not implemented (",
                                crop ? "{height, width}" : "{height, width}, {shortest_edge}, "
                                "{shortest_edge, longest_edge} or {max_height, max_width}", " expected)"));
  }
  return absl::OkStatus();
}

absl::Status ReadTriple(const json& v, absl::string_view key, float out[3]) {
  if (v.is_number()) {
    out[0] = out[1] = out[2] = v.get<float>();
    return absl::OkStatus();
  }
  if (!v.is_array() || v.size() != 3) return Invalid(absl::StrCat(key, " must be a number or a list of 3"));
  for (int i = 0; i < 3; ++i) {
    if (!v[i].is_number()) return Invalid(absl::StrCat(key, " must hold numbers"));
    out[i] = v[i].get<float>();
  }
  return absl::OkStatus();
}

absl::Status ReadFlags(const json& j, Config* c) {
  const std::pair<const char*, bool*> flags[] = {{"do_resize", &c->do_resize},
                                                 {"do_center_crop", &c->do_center_crop},
                                                 {"do_rescale", &c->do_rescale},
                                                 {"do_normalize", &c->do_normalize}};
  for (const auto& [key, field] : flags) {
    if (!j.contains(key) || j[key].is_null()) continue;
    if (!j[key].is_boolean()) return Invalid(absl::StrCat(key, " must be true or false"));
    *field = j[key].get<bool>();
  }
  for (const char* key : {"do_convert_rgb", "disable_grouping", "do_pad", "use_square_size"}) {
    if (j.contains(key) && !j[key].is_null() && !j[key].is_boolean()) {
      return Invalid(absl::StrCat(key, " must be true or false"));
    }
  }
  if (j.value("do_pad", false)) return Invalid("do_pad true is not implemented");
  if (j.value("use_square_size", false)) return Invalid("use_square_size true is not implemented");
  return absl::OkStatus();
}

absl::Status ReadResample(const json& v, Config* c) {
  if (!v.is_number_integer()) return Invalid("resample must be Pillow's filter number");
  const int r = v.get<int>();
  static constexpr const char* kNames[] = {"NEAREST", "LANCZOS", "BILINEAR", "BICUBIC",
                                           "BOX",     "HAMMING", "MKS2013",  "MKS2021"};
  if (r != 2 && r != 3) {
    return Invalid(absl::StrCat("resample ", r, " (", r >= 0 && r < 8 ? kNames[r] : "unknown",
                                ") is not implemented (2 BILINEAR or 3 BICUBIC)"));
  }
  c->resample = r;
  return absl::OkStatus();
}

// The keys the merged object (class defaults, then the file's non-null
// keys) gives, checked as validate_preprocess_arguments checks them.
absl::Status ReadMerged(const json& m, Config* c) {
  if (absl::Status s = ReadFlags(m, c); !s.ok()) return s;
  if (absl::Status s = ReadResample(m["resample"], c); !s.ok()) return s;
  if (m.contains("default_to_square") && !m["default_to_square"].is_boolean()) {
    return Invalid("default_to_square must be true or false");
  }
  const bool square = m.value("default_to_square", true);
  if (m.contains("size")) {
    if (absl::Status s = ReadSize(m["size"], square, "size", c, false); !s.ok()) return s;
  }
  if (m.contains("crop_size")) {
    if (absl::Status s = ReadSize(m["crop_size"], true, "crop_size", c, true); !s.ok()) return s;
  }
  if (m.contains("rescale_factor")) {
    if (!m["rescale_factor"].is_number()) return Invalid("rescale_factor must be a number");
    c->rescale_factor = m["rescale_factor"].get<double>();
  }
  if (absl::Status s = ReadTriple(m["image_mean"], "image_mean", c->image_mean); !s.ok()) return s;
  if (absl::Status s = ReadTriple(m["image_std"], "image_std", c->image_std); !s.ok()) return s;
  if (m.contains("crop_pct") && c->type == "ConvNextImageProcessor") {
    if (!m["crop_pct"].is_number() || m["crop_pct"].get<double>() <= 0) return Invalid("crop_pct must be > 0");
    c->crop_pct = m["crop_pct"].get<double>();
  }
  const bool has_size = c->height > 0 || c->shortest_edge > 0 || c->max_height > 0;
  if (c->do_resize && !has_size) return Invalid("do_resize is true but there is no size");
  if (c->type == "ConvNextImageProcessor" && c->do_resize && c->shortest_edge == 0) {
    return Invalid("ConvNextImageProcessor's size must be {\"shortest_edge\": N}");
  }
  if (c->do_center_crop && c->crop_height == 0) return Invalid("do_center_crop is true but there is no crop_size");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ImageProcessor> ImageProcessor::FromJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Invalid("not a JSON object");
  if (j.contains("image_processor") && j["image_processor"].is_object()) j = j["image_processor"];
  for (const auto& [key, value] : j.items()) {
    if (!KnownKeys().contains(key)) return Invalid(absl::StrCat("unknown key \"", key, "\""));
  }
  absl::StatusOr<const ClassDefaults*> cls = FindClass(j);
  if (!cls.ok()) return cls.status();
  json merged = json::parse((*cls)->defaults);
  const bool clip = merged["mean"] == "clip";
  merged.erase("mean");
  merged["image_mean"] = clip ? json(kClipMean) : json({0.5, 0.5, 0.5});
  merged["image_std"] = clip ? json(kClipStd) : json({0.5, 0.5, 0.5});
  merged["rescale_factor"] = 1.0 / 255;
  for (const auto& [key, value] : j.items()) {
    if (!value.is_null()) merged[key] = value;
  }
  Config config;
  config.type = (*cls)->type;
  if (absl::Status s = ReadMerged(merged, &config); !s.ok()) return s;
  return ImageProcessor(std::move(config));
}

absl::StatusOr<ImageProcessor> ImageProcessor::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("image processor: cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<ImageProcessor> p = FromJson(text.str());
  if (!p.ok()) return absl::Status(p.status().code(), absl::StrCat(p.status().message(), " (", path, ")"));
  return p;
}

}  // namespace qinfer::image
