// The outcome store's read side: a record, an id's history, counts, a scan,
// meta, and a read-only follower catching up.
#include <optional>

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>

#include "store_impl.h"

namespace qinfer::storage {

absl::StatusOr<std::optional<Outcome>> RocksDbOutcomeStore::Get(const std::string& id) const {
  rocksdb::ReadOptions ro;
  // One view for both lookups, so an id moving from failed to results
  // between them is never missed. A secondary is static between Refresh
  // calls and needs none.
  std::optional<rocksdb::ManagedSnapshot> snapshot;
  if (!impl_->options.read_only) {
    snapshot.emplace(impl_->db.get());
    ro.snapshot = snapshot->snapshot();
  }
  absl::StatusOr<std::optional<Outcome>> result = impl_->GetFrom(impl_->results, ro, id);
  if (!result.ok() || result->has_value()) return result;
  return impl_->GetFrom(impl_->failed, ro, id);
}

absl::StatusOr<std::vector<Outcome>> RocksDbOutcomeStore::History(const std::string& id) const {
  std::vector<Outcome> history;
  if (impl_->history == nullptr) return history;
  const std::string prefix = HistoryPrefix(id);
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(ro, impl_->history));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    // An id may itself hold a NUL byte: keys of such an id that extends
    // `id` share the prefix but are longer.
    if (!IsHistoryKeyOf(it->key().ToStringView(), prefix)) continue;
    absl::StatusOr<Outcome> o =
        impl_->OutcomeOf(impl_->history, id + " attempt=" + std::string(it->key().ToStringView().substr(prefix.size())),
                         it->value().ToStringView());
    if (!o.ok()) return o.status();
    history.push_back(*std::move(o));
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "iterate history", impl_->dir);
  }
  return history;
}

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountResults() const { return impl_->Count(impl_->results); }

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountFailures() const { return impl_->Count(impl_->failed); }

absl::StatusOr<uint64_t> RocksDbOutcomeStore::CountSuperseded() const {
  if (impl_->history == nullptr) return 0;
  return impl_->Count(impl_->history);
}

absl::Status RocksDbOutcomeStore::ForEach(Kind kind, const std::function<bool(const Outcome&)>& fn) const {
  return impl_->Visit(kind, [&](rocksdb::ColumnFamilyHandle* cf, std::string_view id,
                                 std::string_view value) -> absl::StatusOr<bool> {
    absl::StatusOr<Outcome> o = impl_->OutcomeOf(cf, id, value);
    if (!o.ok()) return o.status();
    return fn(*o);
  });
}

absl::Status RocksDbOutcomeStore::ForEachJson(Kind kind,
                                              const std::function<bool(std::string_view json)>& fn) const {
  std::string buffer;  // a compact record's text, made again record after record
  return ForEachStored(kind, [&](const StoredRecord& r) { return fn(r.Json(buffer)); });
}

absl::Status RocksDbOutcomeStore::ForEachStored(Kind kind, const std::function<bool(const StoredRecord&)>& fn) const {
  std::string text;  // each record's text, decoded record after record
  return impl_->Visit(kind, [&](rocksdb::ColumnFamilyHandle* cf, std::string_view id,
                                 std::string_view value) -> absl::StatusOr<bool> {
    absl::StatusOr<StoredRecord> r = impl_->RecordOf(cf, id, value, text);
    if (!r.ok()) return r.status();
    // One line a record, as OutcomeToJson writes it: an object, no newline.
    const std::string_view json = r->json;
    if (json.size() < 2 || json.front() != '{' || json.back() != '}' || json.find('\n') != std::string_view::npos) {
      return impl_->Unparsable(cf, id, absl::DataLossError("not one line of a JSON object"));
    }
    return fn(*r);
  });
}

absl::StatusOr<std::optional<std::string>> RocksDbOutcomeStore::GetMeta(const std::string& key) const {
  std::string value;
  rocksdb::Status s = impl_->db->Get(rocksdb::ReadOptions(), impl_->meta, key, &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "get meta", impl_->dir);
  return std::optional<std::string>(std::move(value));
}

absl::Status RocksDbOutcomeStore::Refresh() {
  if (!impl_->options.read_only) return absl::OkStatus();
  if (absl::Status s = FromRocks(impl_->db->TryCatchUpWithPrimary(), "catch up", impl_->dir); !s.ok()) {
    return s;
  }
  MutexLock lock(&impl_->write_mu);
  return impl_->LoadAttempts();
}

const std::string& RocksDbOutcomeStore::dir() const { return impl_->dir; }

bool RocksDbOutcomeStore::read_only() const { return impl_->options.read_only; }

}  // namespace qinfer::storage
