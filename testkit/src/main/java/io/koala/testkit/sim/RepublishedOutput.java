package io.koala.testkit.sim;

import io.koala.coordinator.JobEffect;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What collecting sinks may publish twice: a checkpoint found corrupt at a restore is quarantined
 * and the job falls back to the one before, so what was published since that one committed is
 * produced, and published, again. Exactly once holds only up to the checkpoint restored; the oracle
 * allows these repeats and no others.
 */
final class RepublishedOutput {
  private final List<String> sinks;
  private final Function<String, List<Object>> published; // a sink's results published so far
  private final Map<Long, Map<String, Integer>> publishedAtCommit = new HashMap<>();
  private final Map<String, List<Object>> repeatable = new LinkedHashMap<>();

  RepublishedOutput(List<String> sinks, Function<String, List<Object>> published) {
    this.sinks = List.copyOf(sinks);
    this.published = published;
  }

  /** Notes a commit (its metadata is written once its results are published) or a quarantine. */
  void see(JobEffect e) {
    if (e instanceof JobEffect.WriteMetadata w) {
      Map<String, Integer> sizes = new HashMap<>();
      for (String sink : sinks) {
        sizes.put(sink, published.apply(sink).size());
      }
      publishedAtCommit.put(w.checkpoint().id(), sizes);
    } else if (e instanceof JobEffect.QuarantineCheckpoint q) {
      // the job falls back to the newest checkpoint committed before the quarantined one
      long fallback = -1;
      for (long id : publishedAtCommit.keySet()) {
        if (id < q.checkpointId() && id > fallback) {
          fallback = id;
        }
      }
      Map<String, Integer> from = publishedAtCommit.getOrDefault(fallback, Map.of());
      for (String sink : sinks) {
        List<Object> all = published.apply(sink);
        repeatable
            .computeIfAbsent(sink, k -> new ArrayList<>())
            .addAll(all.subList(from.getOrDefault(sink, 0), all.size()));
      }
      publishedAtCommit.remove(q.checkpointId());
    }
  }

  /** By sink, what may have been published twice. */
  Map<String, List<Object>> repeatable() {
    Map<String, List<Object>> out = new LinkedHashMap<>();
    repeatable.forEach((sink, values) -> out.put(sink, List.copyOf(values)));
    return out;
  }
}
