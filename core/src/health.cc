#include "qinfer/core/health.h"

namespace qinfer {

bool Health::RaiseFatal(const char* cause, std::string reason) {
  std::lock_guard lock(mu_);
  if (fatal_.load()) return false;
  cause_ = cause;
  reason_ = std::move(reason);
  fatal_.store(true);
  return true;
}

std::string Health::cause() const {
  std::lock_guard lock(mu_);
  return cause_;
}

std::string Health::reason() const {
  std::lock_guard lock(mu_);
  return reason_;
}

}  // namespace qinfer
