// The job decoder fuzzer (job_decoder_fuzz.cc) links the consumer's image
// step (consumer/src/job_image.cc), which calls the image module's Decode,
// ReadHeader, DecodeFailureLabel and ImageProcessor::Process. Its limits
// name no processor (a text model's), so an image job is refused before any
// of them; these stand in for the real ones (the codecs, fuzzed on their own
// by image_decoder_fuzz.cc, and the processor, which needs libtorch) so the
// fuzzer builds fast and without torch, and trap, as a crash the fuzzer
// reports, if a job ever reaches them.
#include "qinfer/image/processor.h"

namespace qinfer::image {

absl::StatusOr<PixelValues> ImageProcessor::Process(const RgbImage&) const { __builtin_trap(); }
absl::StatusOr<RgbImage> Decode(std::string_view, const ImageLimits&, bool) { __builtin_trap(); }
absl::StatusOr<ImageInfo> ReadHeader(std::string_view) { __builtin_trap(); }
std::string_view DecodeFailureLabel(const absl::Status&) { __builtin_trap(); }

}  // namespace qinfer::image
