// Compiled, never run: every public header of core, kafka, pipeline and storage
// beside libtorch's bundled fmt (c10/util/strong_type.h includes it). A
// public header that brought in spdlog (which Debian builds against its own
// fmt) would stop the build here, as it would stop the executor's.
#include <c10/util/strong_type.h>

#include "qinfer/core/clock.h"
#include "qinfer/core/dead_letter.h"
#include "qinfer/core/health.h"
#include "qinfer/core/interfaces.h"
#include "qinfer/core/job.h"
#include "qinfer/core/logging.h"
#include "qinfer/core/memory_plan.h"
#include "qinfer/core/mutex.h"
#include "qinfer/core/outcome_json.h"
#include "qinfer/core/recorder.h"
#include "qinfer/core/secrets.h"
#include "qinfer/core/utf8.h"
#include "qinfer/kafka/kafka_log.h"
#include "qinfer/pipeline/chunk_assembler.h"
#include "qinfer/pipeline/executor_loop.h"
#include "qinfer/pipeline/run_control.h"
#include "qinfer/pipeline/service_metrics.h"
#include "qinfer/pipeline/service_snapshot.h"
#include "qinfer/storage/attempt_table.h"
#include "qinfer/storage/kafka_outcome_publisher.h"
#include "qinfer/storage/kafka_job_producer.h"
#include "qinfer/storage/rocksdb_outcome_store.h"
