package io.koala.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The queue between a fetch thread and its task: bounded until emission, wakes an idle task. */
class HandoffTest {

  private static Fetched.Batch batch(int records) {
    return new Fetched.Batch(
        0, new Object[records], new long[records], new long[records], records, records, null);
  }

  @Test
  void theFirstItemIntoAnEmptyQueueWakesTheTaskAndLaterOnesDoNot() throws Exception {
    AtomicInteger wakes = new AtomicInteger();
    Handoff h = new Handoff(100, wakes::incrementAndGet);
    h.put(batch(1), 1);
    h.put(batch(1), 1);
    assertThat(wakes).hasValue(1);
    assertThat(h.poll()).isNotNull();
    assertThat(h.poll()).isNotNull();
    assertThat(h.poll()).isNull();
    h.put(Fetched.Ready.INSTANCE, 0);
    assertThat(wakes).hasValue(2);
  }

  @Test
  void theFetcherWaitsUntilTakenRecordsAreEmittedNotJustTaken() throws Exception {
    Handoff h = new Handoff(10, () -> {});
    h.put(batch(10), 10);
    CompletableFuture<Boolean> second =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return h.put(batch(5), 5);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    assertThat(h.poll()).isNotNull(); // taken, not emitted: still counted
    assertThat(second).isNotDone();
    // control items pass a full queue
    h.put(new Fetched.Assigned(1, 0, Long.MAX_VALUE), 0);
    h.release(10);
    assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void closingReleasesAWaitingFetcherAndDropsWhatFollows() throws Exception {
    Handoff h = new Handoff(1, () -> {});
    h.put(batch(1), 1);
    CompletableFuture<Boolean> blocked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return h.put(batch(1), 1);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    h.close();
    assertThat(blocked.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(h.put(Fetched.Ready.INSTANCE, 0)).isFalse();
  }
}
