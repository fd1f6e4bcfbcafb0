// The job decoder fuzzer (job_decoder_fuzz.cc) links the consumer's image
// step (consumer/src/job_image.cc), which calls ImageProcessor::Process on
// the limits' processor. Its limits name no processor (a text model's), so
// an image job is refused before that call; this stands in for the real
// Process (image/src/processor.cc, which needs libtorch) so the fuzzer
// builds without torch, and traps, as a crash the fuzzer reports, if a
// decoded job ever reaches it.
#include "qinfer/image/processor.h"

namespace qinfer::image {

absl::StatusOr<PixelValues> ImageProcessor::Process(const RgbImage&) const { __builtin_trap(); }

}  // namespace qinfer::image
