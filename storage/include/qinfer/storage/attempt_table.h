// AttemptTable: the attempt counts of RocksDbOutcomeStore's `attempts`
// column family (AttemptLog, crash-loop isolation), mirrored in memory, and
// the entries that keep them durable. Pure logic: the store turns each
// Change into writes of one RocksDB WriteBatch and applies it here once that
// write succeeded.
//
// The column family holds groups. One BeginAttempts call (one batch about to
// run) writes one group:
//   key   "#" + a 16-digit sequence number (groups sort in the order written)
//   value one line per message: "<count> <topic>/<partition>/<offset>\n"
// and the store write that records the batch's outcomes deletes it: two
// entries per batch instead of two per job (a Put when the job begins and a
// Delete when its outcome is stored), which was most of the store's work per
// job on a fast model. A group some of whose messages still run (a chunked
// input's other windows, a crash record's kept count) is rewritten with
// those messages only; a message that begins again moves to the new group
// and leaves its old one in the same write. So every message has its count
// in exactly one entry.
//
// Entries written by versions before groups, key "topic/partition/offset"
// and value "<count>", are read as groups of one message and deleted when
// that message's count goes.
//
// Not thread-safe: the store calls it under its write mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace qinfer::storage {

class AttemptTable {
 public:
  // One write to the column family; no value: delete `key`.
  struct Write {
    std::string key;
    std::optional<std::string> value;
    friend bool operator==(const Write&, const Write&) = default;
  };

  // What Begin or Forget would change: `writes` make it durable (in one
  // atomic write), Apply makes it the table's state.
  struct Change {
    std::vector<Write> writes;

   private:
    friend class AttemptTable;
    std::vector<std::string> forget;                                        // messages that go
    std::string group;                                                      // Begin: the new group
    std::vector<std::pair<std::string, int>> begin;                         // Begin: message, count
    std::vector<std::pair<std::string, std::vector<std::string>>> regroup;  // group, messages left
  };

  // Adds one entry of the column family as read at open (any order).
  void Load(std::string_view key, std::string_view value);

  // Attempts begun for `message` ("topic/partition/offset"); 0: none.
  int Count(std::string_view message) const;
  bool empty() const { return members_.empty(); }
  size_t size() const { return members_.size(); }

  // One more attempt for each of `messages`, all in one new group, and no
  // more for each of `finished` (as Forget), in one change. A message given
  // twice counts once; one both finished and begun starts again from 1.
  Change Begin(std::span<const std::string> messages, std::span<const std::string> finished = {});
  // No more attempts for `messages` (those without any are ignored; writes
  // is empty when none had any).
  Change Forget(std::span<const std::string> messages);
  // REQUIRES: `change` came from this table's last Begin or Forget, and no
  // other change was applied since.
  void Apply(Change change);

  // The value of a group entry holding `members` (message, count).
  static std::string EncodeGroup(std::span<const std::pair<std::string, int>> members);

 private:
  struct Member {
    int count = 0;
    std::string group;  // the entry that holds the count
  };

  // Adds each of `messages` that has attempts to change.forget (once) and to
  // `gone` (message -> its group).
  void Forgotten(std::span<const std::string> messages, Change& change,
                 std::unordered_map<std::string_view, std::string_view>& gone) const;
  // The writes and regroup entries that take `gone` (message -> its group)
  // out of their groups.
  void Leave(const std::unordered_map<std::string_view, std::string_view>& gone, Change& change) const;

  // Looked up by string_view too (Count), without a copy of the key.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  std::unordered_map<std::string, Member, KeyHash, std::equal_to<>> members_;
  std::unordered_map<std::string, std::vector<std::string>> groups_;  // group -> messages
  uint64_t next_group_ = 0;
};

}  // namespace qinfer::storage
