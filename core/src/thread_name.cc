#include "qinfer/core/thread_name.h"

#include <pthread.h>

namespace qinfer {

void NameThisThread(const std::string& name) {
  constexpr size_t kMaxLength = 15;  // the kernel's TASK_COMM_LEN, less its NUL
  pthread_setname_np(pthread_self(), name.substr(0, kMaxLength).c_str());
}

}  // namespace qinfer
