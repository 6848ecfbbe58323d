package io.koala.task;

import static io.koala.task.FakeServices.batch;
import static io.koala.task.FakeServices.taskId;
import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.CheckpointBarrier;
import io.koala.protocol.CheckpointMessage;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.RecordBatch;
import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import io.koala.task.FakeServices.Task;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Aligned checkpoint barriers in one task engine, and its restore (DESIGN §8). */
class CheckpointEngineTest {
  private static final TaskId SRC0 = taskId("words", 0);
  private static final TaskId SRC1 = taskId("words", 1);
  private static final ChannelSettings SETTINGS = new ChannelSettings(100, 1 << 20, 5, 8);

  private final FakeServices services = new FakeServices();
  private final InMemoryStateStore store = new InMemoryStateStore();
  private final List<InMemoryStateStore> restored = new ArrayList<>();

  @AfterEach
  void close() {
    services.snapshots.stream().filter(s -> s.txn() != null).forEach(s -> s.txn().close());
    store.close();
    restored.forEach(InMemoryStateStore::close);
  }

  /** Two source tasks → keyBy(word) → count at one task → collecting sink. */
  private static Dataflow wordCount() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(1);
    b.source(SourceSpec.collection("words", List.of("unused")).partitions(2))
        .parallelism(2)
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    return b.build();
  }

  /** The count task of {@link #services}, taking checkpoints, started. */
  private Task started() {
    services.checkpointing = true;
    Task t = count(services, store);
    t.engine().start(0);
    return t;
  }

  private Task count(FakeServices host, InMemoryStateStore into) {
    Task t = host.task(wordCount(), "count", 0, SETTINGS, into);
    return t;
  }

  @Test
  void theBarrierHoldsItsChannelUntilAlignedAndTheSnapshotSeesExactlyWhatCameBefore() {
    Task t = started();
    int in0 = t.inputFrom(SRC0);
    int in1 = t.inputFrom(SRC1);

    t.engine().onDeliver(new Deliver(in0, 0, batch("a")));
    t.engine().onDeliver(new Deliver(in0, 1, new CheckpointBarrier(1)));
    t.engine().onDeliver(new Deliver(in0, 2, batch("b"))); // after the barrier: held
    t.engine().onDeliver(new Deliver(in1, 0, batch("a"))); // before it on the other input
    assertThat(services.snapshots).as("not aligned yet").isEmpty();
    assertThat(services.records(TaskEngine.CLIENT)).doesNotContain(new KeyValue<>("b", 1L));

    t.engine().onDeliver(new Deliver(in1, 1, new CheckpointBarrier(1)));
    assertThat(services.snapshots).hasSize(1);
    FakeServices.Snapshot snap = services.snapshots.get(0);
    assertThat(snap.checkpointId()).isEqualTo(1);
    // the held record ran after the snapshot: the snapshot's transaction does not see it
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT)).contains(new KeyValue<>("b", 1L));
    assertThat(stateEntries(snap.txn())).as("a counted twice, b not yet").isEqualTo(1);

    // the barrier went to the client after the records before it and before b's count
    List<Object> items = new ArrayList<>();
    for (Deliver d : services.deliveries(TaskEngine.CLIENT)) {
      if (d.item() instanceof RecordBatch rb) {
        for (int i = 0; i < rb.size(); i++) {
          items.add(rb.value(i));
        }
      } else {
        items.add(d.item());
      }
    }
    assertThat(items)
        .containsSubsequence(
            new KeyValue<>("a", 2L), new CheckpointBarrier(1), new KeyValue<>("b", 1L));
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aRestoredTaskGoesOnFromItsSnapshot() {
    Task t = started();
    int in0 = t.inputFrom(SRC0);
    int in1 = t.inputFrom(SRC1);
    t.engine().onDeliver(new Deliver(in0, 0, batch("a", "a")));
    t.engine().onDeliver(new Deliver(in1, 0, EndOfChannel.INSTANCE));
    t.engine().onDeliver(new Deliver(in0, 1, new CheckpointBarrier(7)));
    t.engine().onDeliver(new Deliver(in0, 2, batch("a"))); // lost with the crash
    FakeServices.Snapshot snap = services.snapshots.get(0);

    FakeServices after = new FakeServices();
    after.checkpointing = true;
    InMemoryStateStore copy = copyOf(snap.txn());
    Task r = count(after, copy);
    r.engine().restore(TaskCheckpoint.decode(snap.metadata()));
    r.engine().start(0);
    r.engine().onDeliver(new Deliver(in0, 0, batch("a")));
    r.engine().onTimer(TaskTimer.FLUSH);
    assertThat(after.records(TaskEngine.CLIENT))
        .as("the count goes on from the snapshot's 2, not the lost 3")
        .containsExactly(new KeyValue<>("a", 3L));
    // the input that had ended stays ended: the next barrier needs only the other one
    r.engine().onDeliver(new Deliver(in0, 1, new CheckpointBarrier(8)));
    assertThat(after.snapshots).extracting(FakeServices.Snapshot::checkpointId).containsExactly(8L);
    after.snapshots.forEach(s -> s.txn().close());
    assertThat(after.failures).isEmpty();
  }

  @Test
  void aBarrierOfACheckpointTheTaskSnapshottedAlreadyFailsTheTask() {
    Task t = started();
    int in0 = t.inputFrom(SRC0);
    int in1 = t.inputFrom(SRC1);
    t.engine().onDeliver(new Deliver(in0, 0, new CheckpointBarrier(2)));
    t.engine().onDeliver(new Deliver(in1, 0, new CheckpointBarrier(2)));
    assertThat(services.snapshots).hasSize(1);
    t.engine().onDeliver(new Deliver(in0, 1, new CheckpointBarrier(1)));
    assertThat(services.failures).hasSize(1);
    assertThat(services.failures.get(0).describe()).contains("barrier 1").contains("after 2");
  }

  /**
   * The coordinator triggers a checkpoint only once the one before has committed or been abandoned:
   * a newer barrier while aligning an older one means the older was abandoned (its abort may come
   * after: it travels another way). The held channel flows again, and the newer aligns.
   */
  @Test
  void aNewerBarrierEndsTheAlignmentOfAnAbandonedCheckpoint() {
    Task t = started();
    int in0 = t.inputFrom(SRC0);
    int in1 = t.inputFrom(SRC1);
    t.engine().onDeliver(new Deliver(in0, 0, new CheckpointBarrier(2)));
    t.engine().onDeliver(new Deliver(in0, 1, batch("b"))); // held behind barrier 2
    t.engine().onDeliver(new Deliver(in1, 0, batch("a")));
    t.engine().onDeliver(new Deliver(in1, 1, new CheckpointBarrier(3))); // its upstream skipped 2
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT))
        .as("the channel held for the abandoned checkpoint flows again")
        .contains(new KeyValue<>("b", 1L));
    assertThat(services.snapshots).isEmpty();

    t.engine().onDeliver(new Deliver(in0, 2, new CheckpointBarrier(3)));
    assertThat(services.snapshots)
        .extracting(FakeServices.Snapshot::checkpointId)
        .containsExactly(3L);
    assertThat(stateEntries(services.snapshots.get(0).txn())).as("a and b").isEqualTo(2);
    assertThat(services.failures).isEmpty();
  }

  @Test
  void anAbortEndsTheAlignmentAndTheAbandonedBarrierArrivingLaterIsDropped() {
    Task t = started();
    int in0 = t.inputFrom(SRC0);
    int in1 = t.inputFrom(SRC1);
    t.engine().onDeliver(new Deliver(in0, 0, new CheckpointBarrier(2)));
    t.engine().onDeliver(new Deliver(in0, 1, batch("b"))); // held behind barrier 2
    t.engine().onCheckpoint(new CheckpointMessage.AbortCheckpoint(2));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT)).contains(new KeyValue<>("b", 1L));

    t.engine().onDeliver(new Deliver(in1, 0, new CheckpointBarrier(2))); // late: dropped
    t.engine().onDeliver(new Deliver(in1, 1, batch("b")));
    t.engine().onTimer(TaskTimer.FLUSH);
    assertThat(services.records(TaskEngine.CLIENT))
        .as("no channel is held for it")
        .contains(new KeyValue<>("b", 2L));
    assertThat(services.deliveries(TaskEngine.CLIENT))
        .extracting(Deliver::item)
        .doesNotContain(new CheckpointBarrier(2));

    t.engine().onDeliver(new Deliver(in0, 2, new CheckpointBarrier(3)));
    t.engine().onDeliver(new Deliver(in1, 2, new CheckpointBarrier(3)));
    assertThat(services.snapshots)
        .extracting(FakeServices.Snapshot::checkpointId)
        .containsExactly(3L);
    assertThat(services.failures).isEmpty();
  }

  @Test
  void aSourceSnapshotsItsOffsetsAndEmitsTheBarrierAfterWhatItRead() {
    services.checkpointing = true;
    Task src = services.task(wordCount(), "words", 0, SETTINGS, null);
    src.engine().start(0);
    src.engine().onTimer(TaskTimer.POLL);
    src.engine().onCheckpoint(new CheckpointMessage.TriggerCheckpoint(1));
    TaskCheckpoint cp = TaskCheckpoint.decode(services.snapshots.get(0).metadata());
    assertThat(services.snapshots.get(0).txn()).as("a source has no store").isNull();
    assertThat(cp.positions()).hasSize(1);
    assertThat(cp.positions().values()).as("it read its one record").containsExactly(1L);
    TaskId count = taskId("count", 0);
    List<Deliver> out = services.deliveries(count);
    assertThat(out.get(out.size() - 1).item()).isEqualTo(new CheckpointBarrier(1));
    assertThat(out.get(0).item()).isInstanceOf(RecordBatch.class);
    // a repeat is ignored
    src.engine().onCheckpoint(new CheckpointMessage.TriggerCheckpoint(1));
    assertThat(services.snapshots).hasSize(1);
  }

  private static long stateEntries(ReadTxn txn) {
    return txn.scan(Table.STATE, new byte[0], (k, v) -> true);
  }

  private InMemoryStateStore copyOf(ReadTxn txn) {
    InMemoryStateStore copy = new InMemoryStateStore();
    restored.add(copy);
    WriteTxn w = copy.beginWrite();
    for (Table table : Table.values()) {
      txn.scan(
          table,
          new byte[0],
          (k, v) -> {
            w.put(table, k, v);
            return true;
          });
    }
    w.commit();
    return copy;
  }
}
