/**
 * {@code koala experiment soak}: a checkpointed keyed job with Kafka in and exactly-once Kafka out
 * on node processes, hit in turn by rescales, migrations, task crashes and killed nodes, with one
 * unreadable snapshot and one checkpoint timeout, and judged on what its committed output lost or
 * duplicated and on whether its memory grew.
 */
package io.koala.bench.soak;
