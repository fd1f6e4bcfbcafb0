#include "refusing_file_system.h"

#include <string>
#include <utility>

#include <rocksdb/file_system.h>

namespace qinfer::storage {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

class RefusingLogFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  RefusingLogFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::shared_ptr<const std::atomic<bool>> refuse)
      : FSWritableFileOwnerWrapper(std::move(file)), refuse_(std::move(refuse)) {}

  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    if (refuse_->load()) return Refused();
    return target()->Append(data, options, dbg);
  }
  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    if (refuse_->load()) return Refused();
    return target()->Append(data, options, info, dbg);
  }

 private:
  static IOStatus Refused() { return IOStatus::NoSpace("no space left on device (refused for a test)"); }
  std::shared_ptr<const std::atomic<bool>> refuse_;
};

class LogRefusingFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  LogRefusingFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base,
                        std::shared_ptr<const std::atomic<bool>> refuse)
      : FileSystemWrapper(base), refuse_(std::move(refuse)) {}

  const char* Name() const override { return "QinferLogRefusingFileSystem"; }

  IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* dbg) override {
    IOStatus s = target()->NewWritableFile(name, options, result, dbg);
    if (s.ok() && IsLog(name)) *result = std::make_unique<RefusingLogFile>(std::move(*result), refuse_);
    return s;
  }
  IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                             const rocksdb::FileOptions& options, std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext* dbg) override {
    IOStatus s = target()->ReuseWritableFile(name, old_name, options, result, dbg);
    if (s.ok() && IsLog(name)) *result = std::make_unique<RefusingLogFile>(std::move(*result), refuse_);
    return s;
  }

 private:
  // The write-ahead log's files: NNNNNN.log (the info log is LOG).
  static bool IsLog(const std::string& name) { return name.size() > 4 && name.ends_with(".log"); }
  std::shared_ptr<const std::atomic<bool>> refuse_;
};

}  // namespace

std::unique_ptr<rocksdb::Env> NewLogRefusingEnv(std::shared_ptr<const std::atomic<bool>> refuse) {
  return rocksdb::NewCompositeEnv(
      std::make_shared<LogRefusingFileSystem>(rocksdb::FileSystem::Default(), std::move(refuse)));
}

}  // namespace qinfer::storage
