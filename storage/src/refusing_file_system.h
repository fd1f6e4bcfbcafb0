// A RocksDB file system whose write-ahead log refuses appends while a flag
// is set, as a full disk does (IOStatus::NoSpace): the store's write then
// fails inside RocksDB itself, through the same error handling a real full
// disk meets. Only RocksDbOutcomeStore::OpenRefusingLogWritesForTest uses it.
// Private to storage/.
#pragma once

#include <atomic>
#include <memory>

#include <rocksdb/env.h>

namespace qinfer::storage {

// An Env over the default file system with the refusing log files; the
// flag is read on every append (it may change while the store is open).
std::unique_ptr<rocksdb::Env> NewLogRefusingEnv(std::shared_ptr<const std::atomic<bool>> refuse);

}  // namespace qinfer::storage
