package io.koala.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.IngestMessage;
import io.koala.protocol.IngestMessage.Batch;
import io.koala.protocol.IngestMessage.End;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link IngestLedger}: numbering, striping, windows, retention and replays, without actors. */
class IngestLedgerTest {
  private static final String A = "task-0";
  private static final String B = "task-1";

  private static IngestMessage.Hello hello(int task, long attachment, long position, int window) {
    return new IngestMessage.Hello(task, 2, attachment, task == 0 ? A : B, position, window, true);
  }

  /** A ledger of capacity {@code capacity} over two tasks that said hello at position 0. */
  private static IngestLedger started(int capacity, int window) {
    IngestLedger l = new IngestLedger("events", capacity, 3);
    l.attached(2);
    assertThat(l.hasRoom()).as("no room before every task said where it is").isFalse();
    l.on(hello(0, 1, 0, window));
    assertThat(l.started()).isFalse();
    l.on(hello(1, 2, 0, window));
    assertThat(l.started()).isTrue();
    return l;
  }

  private static List<Object> records(List<IngestLedger.Send> sends, Object address) {
    List<Object> out = new ArrayList<>();
    for (IngestLedger.Send s : sends) {
      if (s.address().equals(address) && s.message() instanceof Batch b) {
        out.addAll(b.records());
      }
    }
    return out;
  }

  @Test
  void recordsAreStripedOverTheTasksInBatchesTheirWindowsAllow() {
    IngestLedger l = started(100, 4);
    for (int i = 1; i <= 12; i++) {
      assertThat(l.offer("r" + i)).isEqualTo(i);
    }
    List<IngestLedger.Send> sends = l.sendable();
    // task 0 gets records 1, 3, 5, 7 (its window of 4), in batches of at most 3; task 1 2, 4, 6, 8
    assertThat(records(sends, A)).containsExactly("r1", "r3", "r5", "r7");
    assertThat(records(sends, B)).containsExactly("r2", "r4", "r6", "r8");
    assertThat(sends)
        .allSatisfy(s -> assertThat(((Batch) s.message()).records()).hasSizeLessThanOrEqualTo(3));
    assertThat(l.sendable()).as("the windows are full").isEmpty();
    l.on(new IngestMessage.Consumed(0, 1, 2)); // task 0 read two: two more fit
    assertThat(records(l.sendable(), A)).containsExactly("r9", "r11");
    assertThat(l.sendable()).isEmpty();
  }

  @Test
  void offersWaitWhileTheRecordsACheckpointDoesNotHoldFillTheCapacity() {
    IngestLedger l = started(6, 100);
    for (int i = 1; i <= 6; i++) {
      l.offer(i);
    }
    assertThat(l.hasRoom()).isFalse();
    l.sendable();
    l.on(new IngestMessage.Consumed(0, 1, 3));
    l.on(new IngestMessage.Consumed(1, 2, 3));
    assertThat(l.hasRoom()).as("read, but no checkpoint holds it yet").isFalse();
    l.on(new IngestMessage.Committed(0, 1, 2)); // records 1 and 3
    assertThat(l.committed()).as("record 2 is not held yet").isEqualTo(1);
    l.on(new IngestMessage.Committed(1, 2, 1)); // record 2; task 1's next, record 4, is not held
    assertThat(l.committed()).isEqualTo(3);
    assertThat(l.held()).isEqualTo(3);
    assertThat(l.hasRoom()).isTrue();
  }

  @Test
  void withoutCheckpointsWhatATaskReadIsCommitted() {
    IngestLedger l = new IngestLedger("events", 4, 10);
    l.attached(1);
    l.on(new IngestMessage.Hello(0, 1, 1, A, 0, 10, false));
    for (int i = 1; i <= 4; i++) {
      l.offer(i);
    }
    l.sendable();
    l.on(new IngestMessage.Consumed(0, 1, 3));
    assertThat(l.committed()).isEqualTo(3);
    assertThat(l.hasRoom()).isTrue();
  }

  @Test
  void aTaskRolledBackToACheckpointGetsEveryRecordAfterItAgain() {
    IngestLedger l = started(100, 100);
    for (int i = 1; i <= 10; i++) {
      l.offer("r" + i);
    }
    l.sendable();
    l.on(new IngestMessage.Committed(0, 1, 2)); // task 0's r1, r3 are in a completed checkpoint
    // task 0 restored from that checkpoint, attached again: it gets r5, r7, r9 again
    l.on(hello(0, 3, 2, 100));
    List<IngestLedger.Send> sends = l.sendable();
    assertThat(records(sends, A)).containsExactly("r5", "r7", "r9");
    assertThat(((Batch) sends.get(0).message()).attachment()).isEqualTo(3);
    assertThat(((Batch) sends.get(0).message()).first()).isEqualTo(2);
    assertThat(records(sends, B)).isEmpty();
    // a late hello of the older incarnation changes nothing
    l.on(hello(0, 1, 0, 100));
    assertThat(l.sendable()).isEmpty();
  }

  @Test
  void aNewHandleStartsWhereTheJobIsAndSkipsTheRecordsItHas() {
    IngestLedger l = new IngestLedger("events", 100, 10);
    l.attached(2);
    // restored from a checkpoint: task 0 has its stripe's first 3 records (1, 3, 5), task 1 its 2
    l.on(hello(0, 1, 3, 100));
    l.on(hello(1, 2, 2, 100));
    assertThat(l.started()).isTrue();
    assertThat(l.committed()).as("records 1..5 are in the job; 6 is not").isEqualTo(5);
    for (int s = 6; s <= 9; s++) {
      assertThat(l.offer("r" + s)).isEqualTo(s);
    }
    List<IngestLedger.Send> sends = l.sendable();
    assertThat(records(sends, A)).containsExactly("r7", "r9");
    assertThat(records(sends, B)).containsExactly("r6", "r8");
  }

  @Test
  void aCompleteInputEndsEachStripeAfterItsLastRecordAndAgainAfterARestore() {
    IngestLedger l = started(100, 100);
    for (int i = 1; i <= 5; i++) {
      l.offer(i);
    }
    l.complete();
    assertThat(l.hasRoom()).isFalse();
    List<IngestLedger.Send> sends = l.sendable();
    assertThat(sends)
        .filteredOn(s -> s.message() instanceof End)
        .extracting(s -> ((End) s.message()).count())
        .containsExactlyInAnyOrder(3L, 2L);
    assertThat(l.sendable()).isEmpty();
    l.on(hello(1, 3, 1, 100));
    sends = l.sendable();
    assertThat(records(sends, B)).containsExactly(4);
    assertThat(sends.get(sends.size() - 1).message()).isEqualTo(new End(3, 2));
  }

  @Test
  void aTaskRestoredBelowWhatTheHandleReleasedFailsTheHandle() {
    IngestLedger l = started(100, 100);
    for (int i = 1; i <= 4; i++) {
      l.offer(i);
    }
    l.sendable();
    l.on(new IngestMessage.Committed(0, 1, 2));
    l.on(new IngestMessage.Committed(1, 2, 2));
    assertThat(l.committed()).isEqualTo(4);
    l.on(hello(0, 3, 0, 100));
    assertThat(l.failure()).contains("task 0 restarted at record 1", "released");
    assertThat(l.hasRoom()).isFalse();
  }
}
