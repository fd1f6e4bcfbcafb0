#include "group_member.h"

#include <memory>

#include "qinfer/core/logging.h"

namespace qinfer::consumer::internal {

void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, const Log& log,
               const RebalanceHooks& hooks) {
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    for (int i = 0; i < parts->cnt; ++i) {
      const rd_kafka_topic_partition_t& tp = parts->elems[i];
      if (hooks.assigning) hooks.assigning(tp.topic, tp.partition);
      log.Info("event=assigned topic=%v partition=%v", tp.topic, tp.partition);
    }
    rd_kafka_assign(rk, parts);
    if (hooks.assigned) hooks.assigned(parts);
    return;
  }
  if (hooks.before_revoke && hooks.before_revoke()) rd_kafka_commit(rk, nullptr, /*async=*/0);
  for (int i = 0; i < parts->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = parts->elems[i];
    if (hooks.revoked) hooks.revoked(tp.topic, tp.partition);
    log.Info("event=revoked topic=%v partition=%v", tp.topic, tp.partition);
  }
  rd_kafka_assign(rk, nullptr);
  if (hooks.after_revoke) hooks.after_revoke();
}

void StoreOffsets(rd_kafka_t* rk, const std::vector<CommitPoint>& points, const Log& log) {
  if (points.empty()) return;
  std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)> list(
      rd_kafka_topic_partition_list_new(int(points.size())), rd_kafka_topic_partition_list_destroy);
  for (const CommitPoint& p : points) {
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = p.next_offset;
  }
  if (rd_kafka_resp_err_t e = rd_kafka_offsets_store(rk, list.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    log.Debug("event=offsets_store_partial error=%v", rd_kafka_err2str(e));
  }
}

}  // namespace qinfer::consumer::internal
