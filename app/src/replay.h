#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "qinfer/replay/replay.h"

namespace qinfer::app {

struct ReplayOptions {
  // Where the failures come from: a result store, or a dead-letter topic
  // (all partitions, or `partition`, from from_offset up to to_offset).
  // With both, the letters are replayed and the store numbers their
  // attempts: a letter's job replays as attempt (the later of the letter's
  // and the id's current record's in the store) + 1.
  std::string store;
  std::string dead_letter_topic;
  int partition = -1;
  int64_t from_offset = 0;
  int64_t to_offset = -1;  // -1: the end
  std::string brokers = "127.0.0.1:9092";
  std::string topic = "jobs";  // where the replayed jobs go
  replay::Selection selection;
  std::string ids_file;  // ids, one per line, added to selection.ids
  replay::Overrides overrides;
  replay::Limits limits;
  bool dry_run = false;
  bool progress = true;
  // librdkafka properties, verbatim: `properties` of the producer (and of
  // its topic check), `consumer_properties` of the dead-letter consumer.
  std::map<std::string, std::string> properties;
  std::map<std::string, std::string> consumer_properties;
};

// `qinfer replay`: re-publishes the selected failures as jobs (see
// replay::ReplayMessage). Returns 0 when every selected failure was sent
// and acknowledged (or, with dry_run, listed), 1 when some could not be
// replayed or delivered, 2 on bad options or an unreadable source.
int Replay(const ReplayOptions& options);

}  // namespace qinfer::app
