package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.koala.job.BucketLoads;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The decayed busy time and loads of a task and its buckets, on a clock the test moves. */
class BucketLoadCounterTest {
  static final long HALF_LIFE = 10_000;

  private final Set<Integer> owned = new HashSet<>(Set.of(1, 2, 5));
  private final BucketLoadCounter c = new BucketLoadCounter(8, HALF_LIFE);
  private long recordsIn;
  private long now = 50_000;

  BucketLoadCounterTest() {
    c.owners(owned::contains);
    c.tick(now, 0); // the first tick only starts the history
  }

  /** A unit of work: {@code perBucket[i]} records of bucket {@code buckets[i]}, busy {@code ns}. */
  private void batch(long ns, int[] buckets, int[] perBucket) {
    for (int i = 0; i < buckets.length; i++) {
      for (int n = 0; n < perBucket[i]; n++) {
        c.record(buckets[i]);
        recordsIn++;
      }
    }
    c.workDone(ns);
  }

  private void second() {
    now += 1000;
    c.tick(now, recordsIn);
  }

  private static double rateOf(BucketLoads l, int bucket) {
    for (int i = 0; i < l.size(); i++) {
      if (l.bucket(i) == bucket) {
        return l.recordsPerSecond(i);
      }
    }
    throw new AssertionError("bucket " + bucket + " not reported: " + l);
  }

  private static double busyOf(BucketLoads l, int bucket) {
    for (int i = 0; i < l.size(); i++) {
      if (l.bucket(i) == bucket) {
        return l.busyFraction(i);
      }
    }
    throw new AssertionError("bucket " + bucket + " not reported: " + l);
  }

  @Test
  void aBatchsBusyTimeIsSplitByRecordCounts() {
    // 300 records, 200 of them of bucket 1: 600 ms busy, 400 of it bucket 1's
    batch(600_000_000L, new int[] {1, 2}, new int[] {200, 100});
    second();
    BucketLoads l = c.loads();
    assertThat(l.bucketCount()).isEqualTo(8);
    assertThat(l.buckets()).containsExactly(1, 2, 5);
    assertThat(rateOf(l, 1)).isCloseTo(200, within(1e-9));
    assertThat(busyOf(l, 1)).isCloseTo(0.4, within(1e-9));
    assertThat(rateOf(l, 2)).isCloseTo(100, within(1e-9));
    assertThat(busyOf(l, 2)).isCloseTo(0.2, within(1e-9));
    assertThat(rateOf(l, 5)).isZero();
    assertThat(c.busyNanos()).isEqualTo(600_000_000L);
    assertThat(c.busyFraction()).isCloseTo(0.6, within(1e-9));
    assertThat(c.recordsPerSecond()).isCloseTo(300, within(1e-9));
  }

  @Test
  void timerCallbacksShareTheBusyTimeButAreNoRecords() {
    c.record(1);
    recordsIn++;
    c.timer(2);
    c.timer(2);
    c.timer(2);
    c.workDone(400_000_000L);
    second();
    BucketLoads l = c.loads();
    assertThat(rateOf(l, 1)).isCloseTo(1, within(1e-9));
    assertThat(rateOf(l, 2)).isZero();
    assertThat(busyOf(l, 1)).isCloseTo(0.1, within(1e-9));
    assertThat(busyOf(l, 2)).isCloseTo(0.3, within(1e-9));
  }

  @Test
  void ratesDecayWithTheHalfLifeAndAverageTheSecondsSeen() {
    for (int s = 0; s < 5; s++) {
      batch(100_000_000L, new int[] {1}, new int[] {100});
      second();
    }
    // a steady rate reads as itself from the first second on, not ramping up from 0
    assertThat(rateOf(c.loads(), 1)).isCloseTo(100, within(1e-9));
    assertThat(c.busyFraction()).isCloseTo(0.1, within(1e-9));
    // then idle for one half-life: the average of 5 s at 100 and 10 s at 0, the recent weighing
    // more
    for (int s = 0; s < 10; s++) {
      second();
    }
    double d = Math.pow(0.5, 1000.0 / HALF_LIFE);
    double weight5 = 1 - Math.pow(d, 5);
    double expected = 100 * weight5 * Math.pow(d, 10) / (1 - Math.pow(d, 15));
    assertThat(rateOf(c.loads(), 1)).isCloseTo(expected, within(1e-6));
    assertThat(expected).isBetween(20.0, 30.0);
  }

  @Test
  void aBucketHandedOverIsNotReportedAndOneTakenOverStartsAtZero() {
    batch(100_000_000L, new int[] {1, 2}, new int[] {50, 50});
    second();
    owned.remove(1); // handed over
    owned.add(3); // taken over
    assertThat(c.loads().buckets()).containsExactly(2, 3, 5);
    batch(100_000_000L, new int[] {3}, new int[] {70}); // before the tick that sees it owned
    second();
    assertThat(rateOf(c.loads(), 3)).as("history starts at the first tick it is owned").isZero();
    batch(100_000_000L, new int[] {3}, new int[] {40});
    second();
    assertThat(rateOf(c.loads(), 3)).isCloseTo(40, within(1e-9));
    // taken back: none of its 50 records/s from before is kept
    owned.add(1);
    assertThat(rateOf(c.loads(), 1)).isZero();
    assertThat(rateOf(c.loads(), 2)).isPositive();
  }

  @Test
  void anEmulatedCapacityIsWhatTheBusyTimeShows() {
    double capacity = 2_000;
    // 500 records that took 1 ms of CPU: at 2,000 records/s they cost 250 ms
    assertThat(BucketLoadCounter.busyNanos(1_000_000, 500, capacity)).isEqualTo(250_000_000L);
    // slower than the capacity: what it took
    assertThat(BucketLoadCounter.busyNanos(400_000_000, 500, capacity)).isEqualTo(400_000_000L);
    // no capacity, or no records (timers): what it took
    assertThat(BucketLoadCounter.busyNanos(1_000_000, 500, 0)).isEqualTo(1_000_000L);
    assertThat(BucketLoadCounter.busyNanos(1_000_000, 0, capacity)).isEqualTo(1_000_000L);
    assertThat(BucketLoadCounter.busyNanos(-5, 0, 0)).isZero();

    // a task of capacity C processing N records in batches shows N / C s busy, and records per
    // busy second C
    int n = 0;
    for (int s = 0; s < 3; s++) {
      for (int b = 0; b < 10; b++) {
        for (int i = 0; i < 120; i++) {
          c.record(i % 4 == 0 ? 5 : 2);
          recordsIn++;
          n++;
        }
        c.workDone(BucketLoadCounter.busyNanos(50_000, 120, capacity));
      }
      second();
    }
    assertThat(c.busyNanos() / 1e9).isCloseTo(n / capacity, within(1e-6));
    assertThat(c.recordsPerSecond() / c.busyFraction()).isCloseTo(capacity, within(1e-6));
    assertThat(c.busyFraction()).isCloseTo(0.6, within(1e-9));
    BucketLoads l = c.loads();
    assertThat(busyOf(l, 2)).isCloseTo(0.45, within(1e-9));
    assertThat(busyOf(l, 5)).isCloseTo(0.15, within(1e-9));
  }

  @Test
  void aTaskWithoutKeyedInputKeepsOnlyItsOwnLoad() {
    BucketLoadCounter plain = new BucketLoadCounter(0, HALF_LIFE);
    plain.tick(0, 0);
    plain.workDone(250_000_000L);
    plain.tick(500, 100);
    assertThat(plain.loads()).isEqualTo(BucketLoads.NONE);
    assertThat(plain.busyFraction()).isCloseTo(0.5, within(1e-9));
    assertThat(plain.recordsPerSecond()).isCloseTo(200, within(1e-9));
  }
}
