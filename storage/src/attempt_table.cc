#include "qinfer/storage/attempt_table.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

namespace qinfer::storage {
namespace {

constexpr char kGroupPrefix = '#';  // no topic name holds '#'
constexpr size_t kGroupDigits = 16;

std::string GroupKey(uint64_t seq) {
  std::string digits = std::to_string(seq);
  std::string key(1, kGroupPrefix);
  key.append(kGroupDigits - std::min(kGroupDigits, digits.size()), '0');
  key += digits;
  return key;
}

int ParseCount(std::string_view text) {
  int count = 0;
  std::from_chars(text.data(), text.data() + text.size(), count);
  return count;
}

}  // namespace

std::string AttemptTable::EncodeGroup(std::span<const std::pair<std::string, int>> members) {
  std::string value;
  for (const auto& [message, count] : members) {
    value += std::to_string(count);
    value += ' ';
    value += message;
    value += '\n';
  }
  return value;
}

void AttemptTable::Load(std::string_view key, std::string_view value) {
  const std::string group(key);
  auto add = [&](std::string_view message, int count) {
    auto [it, inserted] = members_.try_emplace(std::string(message));
    if (!inserted) {
      // Never written so, but should a message be in two entries, the
      // higher count is the later one (counts only grow while it lives).
      if (it->second.count >= count) return;
      std::erase(groups_[it->second.group], it->first);
    }
    it->second = {count, group};
    groups_[group].push_back(it->first);
  };
  if (key.empty() || key.front() != kGroupPrefix) {
    add(key, ParseCount(value));  // an entry of one message, as older versions wrote them
    return;
  }
  uint64_t seq = 0;
  std::from_chars(key.data() + 1, key.data() + key.size(), seq);
  next_group_ = std::max(next_group_, seq + 1);
  while (!value.empty()) {
    const size_t end = value.find('\n');
    std::string_view line = value.substr(0, end);
    value = end == std::string_view::npos ? std::string_view() : value.substr(end + 1);
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    add(line.substr(space + 1), ParseCount(line.substr(0, space)));
  }
  if (groups_[group].empty()) groups_.erase(group);
}

int AttemptTable::Count(std::string_view message) const {
  auto it = members_.find(message);
  return it == members_.end() ? 0 : it->second.count;
}

void AttemptTable::Leave(const std::unordered_map<std::string_view, std::string_view>& gone, Change& change) const {
  std::unordered_set<std::string_view> touched;
  for (const auto& [message, group] : gone) touched.insert(group);
  for (std::string_view group : touched) {
    const std::vector<std::string>& messages = groups_.at(std::string(group));
    std::vector<std::string> left;
    std::vector<std::pair<std::string, int>> kept;
    for (const std::string& m : messages) {
      if (gone.contains(m)) continue;
      left.push_back(m);
      kept.emplace_back(m, members_.at(m).count);
    }
    // An entry of one message (an older version's) only ever goes whole.
    change.writes.push_back({std::string(group), left.empty() ? std::nullopt : std::optional(EncodeGroup(kept))});
    change.regroup.emplace_back(std::string(group), std::move(left));
  }
}

AttemptTable::Change AttemptTable::Begin(std::span<const std::string> messages, std::span<const std::string> finished) {
  Change change;
  std::unordered_map<std::string_view, std::string_view> gone;  // message -> its old group
  Forgotten(finished, change, gone);
  const std::unordered_set<std::string_view> done(change.forget.begin(), change.forget.end());
  std::unordered_set<std::string_view> seen;
  for (const std::string& message : messages) {
    if (!seen.insert(message).second) continue;
    auto it = members_.find(message);
    int count = 1;
    if (it != members_.end() && !done.contains(it->first)) {
      count = it->second.count + 1;
      gone.emplace(it->first, it->second.group);
    }
    change.begin.emplace_back(message, count);
  }
  if (!change.begin.empty()) {
    change.group = GroupKey(next_group_++);
    change.writes.push_back({change.group, EncodeGroup(change.begin)});
  }
  Leave(gone, change);
  return change;
}

void AttemptTable::Forgotten(std::span<const std::string> messages, Change& change,
                             std::unordered_map<std::string_view, std::string_view>& gone) const {
  for (const std::string& message : messages) {
    auto it = members_.find(message);
    if (it == members_.end()) continue;
    if (gone.emplace(it->first, it->second.group).second) change.forget.push_back(message);
  }
}

AttemptTable::Change AttemptTable::Forget(std::span<const std::string> messages) {
  Change change;
  std::unordered_map<std::string_view, std::string_view> gone;  // message -> group
  Forgotten(messages, change, gone);
  Leave(gone, change);
  return change;
}

void AttemptTable::Apply(Change change) {
  for (const std::string& message : change.forget) members_.erase(message);
  for (auto& [group, left] : change.regroup) {
    if (left.empty()) {
      groups_.erase(group);
    } else {
      groups_[group] = std::move(left);
    }
  }
  if (change.group.empty()) return;
  std::vector<std::string>& in_group = groups_[change.group];
  for (auto& [message, count] : change.begin) {
    members_[message] = {count, change.group};
    in_group.push_back(std::move(message));
  }
}

}  // namespace qinfer::storage
