// The EXIF orientation as Pillow's getexif() finds it, and exif_transpose's
// transposes. The EXIF block is parsed by libexif with its "fix" and
// "follow the specification" options off, so it reports the tags as stored
// (the specification option would add or drop entries).
#include <libexif/exif-data.h>

#include <cstring>
#include <memory>

#include "codecs.h"

namespace qinfer::image::internal {
namespace {

struct ExifDataUnref {
  void operator()(ExifData* d) const { exif_data_unref(d); }
};

// Tag 274 of IFD0; 0 when absent or not a single number.
int FromExif(std::string_view exif) {
  // Pillow strips every leading "Exif\0\0"; libexif wants exactly one.
  static constexpr std::string_view kHeader("Exif\0\0", 6);
  while (exif.substr(0, 6) == kHeader) exif.remove_prefix(6);
  if (exif.size() < 8) return 0;
  std::string data(kHeader);
  data.append(exif);
  std::unique_ptr<ExifData, ExifDataUnref> parsed(exif_data_new());
  if (parsed == nullptr) return 0;
  exif_data_unset_option(parsed.get(), EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
  exif_data_unset_option(parsed.get(), EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
  exif_data_set_option(parsed.get(), EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
  exif_data_load_data(parsed.get(), reinterpret_cast<const unsigned char*>(data.data()),
                      static_cast<unsigned int>(data.size()));
  ExifEntry* entry = exif_content_get_entry(parsed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
  if (entry == nullptr || entry->components != 1 || entry->data == nullptr) return 0;
  const ExifByteOrder order = exif_data_get_byte_order(parsed.get());
  switch (entry->format) {
    case EXIF_FORMAT_SHORT:
      return entry->size >= 2 ? exif_get_short(entry->data, order) : 0;
    case EXIF_FORMAT_LONG:
      return entry->size >= 4 ? static_cast<int>(std::min<ExifLong>(exif_get_long(entry->data, order), 9)) : 0;
    case EXIF_FORMAT_BYTE:
      return entry->size >= 1 ? entry->data[0] : 0;
    default:
      return 0;
  }
}

// Pillow: re.search(r'tiff:Orientation(="|>)([0-9])', xmp).
int FromXmp(std::string_view xmp) {
  static constexpr std::string_view kKey = "tiff:Orientation";
  for (size_t at = xmp.find(kKey); at != std::string_view::npos; at = xmp.find(kKey, at + 1)) {
    std::string_view rest = xmp.substr(at + kKey.size());
    if (rest.substr(0, 2) == "=\"" && rest.size() > 2 && rest[2] >= '0' && rest[2] <= '9') return rest[2] - '0';
    if (rest.substr(0, 1) == ">" && rest.size() > 1 && rest[1] >= '0' && rest[1] <= '9') return rest[1] - '0';
  }
  return 0;
}

}  // namespace

int ExifOrientation(const Decoded& decoded) {
  int orientation = decoded.orientation;
  if (orientation == 0 && !decoded.exif.empty()) orientation = FromExif(decoded.exif);
  if (orientation == 0 && !decoded.xmp.empty()) orientation = FromXmp(decoded.xmp);
  return orientation >= 2 && orientation <= 8 ? orientation : 1;
}

void ApplyOrientation(int orientation, int64_t* width, int64_t* height, std::vector<uint8_t>* rgb) {
  if (orientation < 2 || orientation > 8) return;
  const int64_t w = *width, h = *height;
  const bool swap = orientation >= 5;
  const int64_t ow = swap ? h : w, oh = swap ? w : h;
  std::vector<uint8_t> out(rgb->size());
  // For each output pixel (x, y), the source pixel (sx, sy).
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      int64_t sx = x, sy = y;
      switch (orientation) {
        case 2: sx = w - 1 - x; break;                   // FLIP_LEFT_RIGHT
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;   // ROTATE_180
        case 4: sy = h - 1 - y; break;                   // FLIP_TOP_BOTTOM
        case 5: sx = y; sy = x; break;                   // TRANSPOSE
        case 6: sx = y; sy = h - 1 - x; break;           // ROTATE_270 (clockwise 90)
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;   // TRANSVERSE
        case 8: sx = w - 1 - y; sy = x; break;           // ROTATE_90 (counter-clockwise)
      }
      std::memcpy(&out[static_cast<size_t>((y * ow + x) * 3)], &(*rgb)[static_cast<size_t>((sy * w + sx) * 3)], 3);
    }
  }
  *rgb = std::move(out);
  *width = ow;
  *height = oh;
}

}  // namespace qinfer::image::internal
