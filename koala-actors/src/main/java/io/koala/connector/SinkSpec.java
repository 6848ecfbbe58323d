package io.koala.connector;

import java.nio.file.Path;

/** A sink: opens one writer per sink task. */
public interface SinkSpec<T> {
  /** The sink operator's name. */
  String name();

  SinkWriter<T> open(SinkContext ctx) throws Exception;

  /** Sends every record back to the client ({@code JobHandle.collected(name)}); for tests. */
  static <T> SinkSpec<T> collecting(String name) {
    return Sinks.collecting(name);
  }

  /** Counts and drops every record (the count shows in the job's metrics). */
  static <T> SinkSpec<T> discarding(String name) {
    return Sinks.discarding(name);
  }

  /**
   * Calls {@code fn} with every record, in the process that runs the sink's task (every node
   * defines the dataflow, so each node's service gets the records of the sink tasks it hosts; in an
   * embedded runtime, the service's own process). Order: a task calls {@code fn} in the order its
   * records arrive; no order across tasks.
   *
   * <p>Delivery: every record reaches {@code fn} at least once. In a job that takes checkpoints, a
   * rollback to a checkpoint replays the records after it, so {@code fn} can see a record again:
   * make its effect idempotent (an upsert by key), or use a sink that publishes on commit ({@link
   * #jsonLines}, or a {@link SinkWriter} with {@code prepareCommit}/{@code commit}) where output
   * must be exactly-once.
   *
   * <p>Backpressure: the task waits for each call, so a slow {@code fn} slows the job down to its
   * pace rather than queueing records (the calls run on the task's thread, one of a small pool: a
   * call that blocks for long also delays the tasks that share that pool).
   *
   * <pre>{@code
   * counts.sink(SinkSpec.forEach("to-cache", kv -> cache.put(kv.key(), kv.value())));
   * }</pre>
   */
  static <T> SinkSpec<T> forEach(String name, SinkFunction<? super T> fn) {
    return Sinks.forEach(name, fn);
  }

  /**
   * A sink whose records the service takes from a queue of at most {@code capacity} records; a full
   * queue backpressures the job ({@link QueueSink}).
   */
  static <T> QueueSink<T> queue(String name, int capacity) {
    return new QueueSink<>(name, capacity);
  }

  /** Logs every record at INFO on the logger {@code io.koala.sink.<name>}. */
  static <T> SinkSpec<T> logging(String name) {
    return Sinks.logging(name);
  }

  /**
   * Writes one JSON document per line, one file or set of files per sink task, in {@code
   * directory}, each record as Jackson writes it with its default settings ({@link
   * JsonEncoder#jackson()}): records, beans and maps become objects, collections and arrays lists.
   * A record of a class Jackson cannot write fails the job, naming the sink and the class.
   *
   * <p>In a job without checkpoints, task {@code t} writes {@code <name>-<t>.jsonl} as records
   * arrive (replacing a file of that name); a reader may see a partial last line while it runs.
   *
   * <p>In a job that takes checkpoints the sink is <b>exactly-once</b>: a reader that lists {@code
   * *.jsonl} sees only committed data, each record once, even across crashes and rollbacks. Task
   * {@code t} writes to {@code <name>-<t>.jsonl.inprogress}; at checkpoint {@code c}'s barrier it
   * syncs and renames that file to {@code <name>-<t>-<c>.jsonl.pending}, and once {@code c} is
   * durably recorded it renames every pending part up to {@code c} to {@code <name>-<t>-<c>.jsonl}
   * (atomic renames: a visible part is complete and never changes). When its input ends the task
   * publishes the rest as a last part numbered one past its last checkpoint. A checkpoint before
   * which the task wrote nothing makes no part, so numbers have gaps. Order: the lines of a part in
   * the order the task wrote them; a task's parts in increasing number (numerically: {@code
   * -10.jsonl} follows {@code -9.jsonl}); no order across tasks. On a rollback to checkpoint {@code
   * r} a task deletes its in-progress file and its pending parts after {@code r}, and publishes
   * those up to {@code r}. A job that starts without a checkpoint deletes this sink's parts left in
   * {@code directory} by an earlier run.
   *
   * <p>Limitation: the last part is published when the task finishes, not by a checkpoint (none is
   * taken once the input ends), so if the job crashes after a sink task finished but before a
   * checkpoint covers that (the job's end, or the retirement of a sink task at a scale-in), the
   * rollback deletes that visible part and the replay writes its records again: the end result is
   * exactly-once, but a reader that looked in between saw the part come and go.
   *
   * <pre>{@code
   * counts.sink(SinkSpec.jsonLines("counts", Path.of("/data/out")));
   * // a reader: every line of /data/out/counts-*.jsonl, once the job ended or as parts appear
   * }</pre>
   */
  static <T> SinkSpec<T> jsonLines(String name, Path directory) {
    return Sinks.jsonLines(name, directory, JsonEncoder.jackson());
  }

  /**
   * {@link #jsonLines(String, Path)}, each record's line written by {@code encoder} (a mapper of
   * the service's own, or any function); a line it returns must not contain a line break.
   */
  static <T> SinkSpec<T> jsonLines(String name, Path directory, JsonEncoder<? super T> encoder) {
    return Sinks.jsonLines(name, directory, encoder);
  }
}
