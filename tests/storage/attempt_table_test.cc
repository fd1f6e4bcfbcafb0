#include "qinfer/storage/attempt_table.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace qinfer::storage {
namespace {

using Strings = std::vector<std::string>;
using Write = AttemptTable::Write;

// The column family as a map, with the writes of each change applied:
// what a reopen would read.
class Column {
 public:
  void Apply(const AttemptTable::Change& change) {
    for (const Write& w : change.writes) {
      if (w.value) {
        entries_[w.key] = *w.value;
      } else {
        entries_.erase(w.key);
      }
    }
  }
  AttemptTable Reload() const {
    AttemptTable table;
    for (const auto& [k, v] : entries_) table.Load(k, v);
    return table;
  }
  size_t size() const { return entries_.size(); }
  std::map<std::string, std::string>& entries() { return entries_; }

 private:
  std::map<std::string, std::string> entries_;
};

// Begins or forgets through both the table and the column.
void Begin(AttemptTable& table, Column& column, const Strings& messages) {
  AttemptTable::Change change = table.Begin(messages);
  column.Apply(change);
  table.Apply(std::move(change));
}
void Forget(AttemptTable& table, Column& column, const Strings& messages) {
  AttemptTable::Change change = table.Forget(messages);
  column.Apply(change);
  table.Apply(std::move(change));
}

TEST(AttemptTableTest, ABatchIsOneEntryWrittenWhenItBeginsAndDeletedWithItsOutcomes) {
  AttemptTable table;
  Column column;
  const Strings batch = {"jobs/0/7", "jobs/0/8", "jobs/0/9"};
  AttemptTable::Change begin = table.Begin(batch);
  ASSERT_EQ(begin.writes.size(), 1u);
  EXPECT_EQ(begin.writes[0], (Write{"#0000000000000000", "1 jobs/0/7\n1 jobs/0/8\n1 jobs/0/9\n"}));
  EXPECT_EQ(table.Count("jobs/0/7"), 0) << "nothing changes before Apply";
  column.Apply(begin);
  table.Apply(std::move(begin));
  EXPECT_EQ(table.Count("jobs/0/8"), 1);

  AttemptTable::Change done = table.Forget(batch);
  EXPECT_EQ(done.writes, (std::vector<Write>{{"#0000000000000000", std::nullopt}}));
  column.Apply(done);
  table.Apply(std::move(done));
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(column.size(), 0u);
}

TEST(AttemptTableTest, APartlyDoneGroupIsRewrittenWithWhatStillRuns) {
  AttemptTable table;
  Column column;
  Begin(table, column, {"jobs/0/1", "jobs/0/2", "jobs/0/3"});
  AttemptTable::Change done = table.Forget(Strings{"jobs/0/2", "jobs/0/404"});
  EXPECT_EQ(done.writes, (std::vector<Write>{{"#0000000000000000", "1 jobs/0/1\n1 jobs/0/3\n"}}));
  column.Apply(done);
  table.Apply(std::move(done));
  EXPECT_EQ(table.Count("jobs/0/1"), 1);
  EXPECT_EQ(table.Count("jobs/0/2"), 0);
  AttemptTable reloaded = column.Reload();
  EXPECT_EQ(reloaded.Count("jobs/0/1"), 1);
  EXPECT_EQ(reloaded.Count("jobs/0/2"), 0);
  EXPECT_EQ(reloaded.Count("jobs/0/3"), 1);
}

TEST(AttemptTableTest, ForgettingWhatNeverBeganWritesNothing) {
  AttemptTable table;
  EXPECT_TRUE(table.Forget(Strings{"jobs/0/1"}).writes.empty());
  EXPECT_TRUE(table.Begin(Strings{}).writes.empty());
}

TEST(AttemptTableTest, BeginningAgainMovesTheMessageToTheNewGroupWithItsCountUp) {
  AttemptTable table;
  Column column;
  Begin(table, column, {"jobs/0/1", "jobs/0/2"});
  // After a restart: both had attempts; each runs alone.
  AttemptTable::Change again = table.Begin(Strings{"jobs/0/2"});
  EXPECT_EQ(again.writes,
            (std::vector<Write>{{"#0000000000000001", "2 jobs/0/2\n"}, {"#0000000000000000", "1 jobs/0/1\n"}}))
      << "the new group, and the old one without the message, in one write";
  column.Apply(again);
  table.Apply(std::move(again));
  Begin(table, column, {"jobs/0/1"});
  EXPECT_EQ(table.Count("jobs/0/1"), 2);
  EXPECT_EQ(table.Count("jobs/0/2"), 2);
  EXPECT_EQ(column.size(), 2u) << "the first group went with its last message";
  AttemptTable reloaded = column.Reload();
  EXPECT_EQ(reloaded.Count("jobs/0/1"), 2);
  EXPECT_EQ(reloaded.Count("jobs/0/2"), 2);
  EXPECT_EQ(reloaded.size(), 2u);
}

TEST(AttemptTableTest, BeginForgetsWhatFinishedInTheSameChange) {
  AttemptTable table;
  Column column;
  Begin(table, column, {"jobs/0/1", "jobs/0/2"});
  Begin(table, column, {"jobs/0/3"});
  // The first batch ran to its end; the third begins: one change for both.
  AttemptTable::Change next =
      table.Begin(Strings{"jobs/0/4", "jobs/0/2"}, Strings{"jobs/0/1", "jobs/0/2", "jobs/0/404"});
  EXPECT_EQ(next.writes, (std::vector<Write>{{"#0000000000000002", "1 jobs/0/4\n1 jobs/0/2\n"},
                                             {"#0000000000000000", std::nullopt}}))
      << "a message both finished and begun again starts from 1";
  column.Apply(next);
  table.Apply(std::move(next));
  EXPECT_EQ(table.Count("jobs/0/1"), 0);
  EXPECT_EQ(table.Count("jobs/0/2"), 1);
  EXPECT_EQ(table.Count("jobs/0/3"), 1);
  EXPECT_EQ(table.Count("jobs/0/4"), 1);
  AttemptTable reloaded = column.Reload();
  EXPECT_EQ(reloaded.Count("jobs/0/1"), 0);
  EXPECT_EQ(reloaded.Count("jobs/0/2"), 1);
  EXPECT_EQ(reloaded.size(), 3u);
  EXPECT_TRUE(table.Begin(Strings{}, Strings{"jobs/0/404"}).writes.empty());
}

TEST(AttemptTableTest, AMessageGivenTwiceInOneBeginCountsOnce) {
  AttemptTable table;
  Column column;
  Begin(table, column, {"jobs/0/1", "jobs/0/1"});
  EXPECT_EQ(table.Count("jobs/0/1"), 1);
  EXPECT_EQ(column.Reload().Count("jobs/0/1"), 1);
}

TEST(AttemptTableTest, AReloadContinuesTheSequenceAfterTheLastGroup) {
  AttemptTable table;
  Column column;
  for (int i = 0; i < 12; ++i) Begin(table, column, {"jobs/1/" + std::to_string(i)});
  AttemptTable reloaded = column.Reload();
  AttemptTable::Change next = reloaded.Begin(Strings{"jobs/1/99"});
  EXPECT_EQ(next.writes[0].key, "#0000000000000012");
  for (int i = 0; i < 12; ++i) EXPECT_EQ(reloaded.Count("jobs/1/" + std::to_string(i)), 1);
}

TEST(AttemptTableTest, EntriesOfOlderVersionsCountAndGoWhole) {
  Column column;
  column.entries()["jobs/3/42"] = "2";  // "topic/partition/offset" -> count
  column.entries()["jobs/3/43"] = "1";
  AttemptTable table = column.Reload();
  EXPECT_EQ(table.Count("jobs/3/42"), 2);
  EXPECT_EQ(table.Count("jobs/3/43"), 1);

  AttemptTable::Change again = table.Begin(Strings{"jobs/3/42"});
  EXPECT_EQ(again.writes, (std::vector<Write>{{"#0000000000000000", "3 jobs/3/42\n"}, {"jobs/3/42", std::nullopt}}));
  column.Apply(again);
  table.Apply(std::move(again));
  Forget(table, column, {"jobs/3/43"});
  EXPECT_EQ(column.entries(), (std::map<std::string, std::string>{{"#0000000000000000", "3 jobs/3/42\n"}}));
  EXPECT_EQ(column.Reload().Count("jobs/3/42"), 3);
}

TEST(AttemptTableTest, TopicsWithSpacesOrSlashesInTheirIdsStillParse) {
  // Topic names are [a-zA-Z0-9._-]; the key's own slashes are no problem.
  AttemptTable table;
  Column column;
  Begin(table, column, {"my.topic-1/12/3456789012"});
  EXPECT_EQ(column.Reload().Count("my.topic-1/12/3456789012"), 1);
}

}  // namespace
}  // namespace qinfer::storage
