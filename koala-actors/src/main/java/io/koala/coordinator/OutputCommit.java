package io.koala.coordinator;

import io.koala.plan.TaskId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exactly-once delivery of the results tasks send to the job's client (collecting sinks), pure:
 * results are published only once a checkpoint that includes their effects is committed, so a
 * rollback never shows a result twice or loses one (DESIGN §8).
 *
 * <p>Each task's results are buffered until its output is <b>cut</b> for a checkpoint: by its
 * barrier on the client channel (a live task), or by its snapshot report (a retired holder, which
 * reports only once all its results have arrived). A cut moves them to that checkpoint; its commit
 * publishes every checkpoint up to it. When the job ends, everything is final.
 *
 * @param <T> a result
 */
public final class OutputCommit<T> {

  /** A result of collecting sink {@code sink}. */
  public record Result<T>(String sink, T value) {}

  private final Map<TaskId, List<Result<T>>> uncut = new LinkedHashMap<>();
  private final TreeMap<Long, List<Result<T>>> cut = new TreeMap<>();

  /** {@code values} of {@code sink} arrived from {@code task}. */
  public void received(TaskId task, String sink, List<T> values) {
    List<Result<T>> buffer = uncut.computeIfAbsent(task, k -> new ArrayList<>());
    for (T v : values) {
      buffer.add(new Result<>(sink, v));
    }
  }

  /** Everything {@code task} sent so far belongs to checkpoint {@code checkpointId}. */
  public void cut(TaskId task, long checkpointId) {
    List<Result<T>> buffer = uncut.remove(task);
    if (buffer != null) {
      cut.computeIfAbsent(checkpointId, k -> new ArrayList<>()).addAll(buffer);
    }
  }

  /** Checkpoint {@code checkpointId} is committed: the results now published, by sink. */
  public Map<String, List<T>> committed(long checkpointId) {
    Map<String, List<T>> out = new HashMap<>();
    var upTo = cut.headMap(checkpointId, true);
    upTo.values().forEach(results -> publish(results, out));
    upTo.clear();
    return out;
  }

  /** The job ended: every result is final. */
  public Map<String, List<T>> ended() {
    Map<String, List<T>> out = new HashMap<>();
    cut.values().forEach(results -> publish(results, out));
    uncut.values().forEach(results -> publish(results, out));
    cut.clear();
    uncut.clear();
    return out;
  }

  /** The job rolled back: the results not yet published will be produced again. */
  public void rolledBack() {
    cut.clear();
    uncut.clear();
  }

  /** Whether {@code task} sent results that no checkpoint has cut yet. */
  public boolean uncut(TaskId task) {
    List<Result<T>> buffer = uncut.get(task);
    return buffer != null && !buffer.isEmpty();
  }

  /** Results received and not yet published. */
  public long unpublished() {
    long n = 0;
    for (List<Result<T>> r : cut.values()) {
      n += r.size();
    }
    for (List<Result<T>> r : uncut.values()) {
      n += r.size();
    }
    return n;
  }

  private void publish(List<Result<T>> results, Map<String, List<T>> out) {
    for (Result<T> r : results) {
      out.computeIfAbsent(r.sink(), k -> new ArrayList<>()).add(r.value());
    }
  }
}
