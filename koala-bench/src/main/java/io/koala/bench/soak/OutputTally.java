package io.koala.bench.soak;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * What a running count's committed output says about its input, pure: a key read n times must emit
 * 1..n, each once. A count seen again is a duplicated record (its input was counted, or its output
 * published, twice), and so is a count above the records written for its key; a count of 1..n never
 * seen is a lost record.
 */
final class OutputTally {
  private final Map<Long, BitSet> seen = new HashMap<>();
  private final Map<Long, Long> written = new HashMap<>();
  private long repeated; // (key, count) pairs seen again

  /** One more record written for {@code key}. */
  synchronized void written(long key) {
    written.merge(key, 1L, Long::sum);
  }

  /** The sink published {@code count} for {@code key}. */
  synchronized void output(long key, long count) {
    if (count < 1 || count > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("key " + key + ": a count of " + count);
    }
    BitSet counts = seen.computeIfAbsent(key, k -> new BitSet());
    if (counts.get((int) count)) {
      repeated++;
    } else {
      counts.set((int) count);
    }
  }

  /** Records written. */
  synchronized long writtenRecords() {
    return written.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Whether every record written has its count in the output. */
  synchronized boolean complete() {
    return lost() == 0;
  }

  /** Records written whose count is not in the output. */
  synchronized long lost() {
    long lost = 0;
    for (Map.Entry<Long, Long> e : written.entrySet()) {
      BitSet counts = seen.get(e.getKey());
      long n = e.getValue();
      long present = counts == null ? 0 : counts.get(1, (int) n + 1).cardinality();
      lost += n - present;
    }
    return lost;
  }

  /** Counts seen more than once, and counts above the records written for their key. */
  synchronized long duplicated() {
    long above = 0;
    for (Map.Entry<Long, BitSet> e : seen.entrySet()) {
      long n = written.getOrDefault(e.getKey(), 0L);
      BitSet counts = e.getValue();
      above += counts.cardinality() - counts.get(1, (int) n + 1).cardinality();
    }
    return repeated + above;
  }
}
