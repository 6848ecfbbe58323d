package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.CheckpointMessage;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The coordinator's checkpoint core: triggering, completion, retention, holders, rollback. */
class CheckpointsTest {
  private static final TaskId SRC = new TaskId(new OperatorId("src"), 0);
  private static final TaskId OP = new TaskId(new OperatorId("op"), 0);
  private static final TaskId HOLDER = new TaskId(new OperatorId("op"), 1);

  private final Checkpoints<String, String> c =
      new Checkpoints<>(new Checkpoints.Settings(100, 2), 0);

  private static List<Checkpoints.Send> sends(List<Checkpoints.Effect> effects) {
    List<Checkpoints.Send> out = new ArrayList<>();
    effects.forEach(
        e -> {
          if (e instanceof Checkpoints.Send s) {
            out.add(s);
          }
        });
    return out;
  }

  /** Triggers, reports every snapshot and cut, and persists; returns the effects of persisting. */
  private List<Checkpoints.Effect> complete(long now, List<TaskId> holders) {
    c.trigger(now, "state@" + now, List.of(SRC), List.of(SRC, OP), holders);
    long id = c.pendingId();
    c.snapshotTaken(SRC, id, "src-" + id);
    c.clientBarrier(SRC, id);
    c.clientBarrier(OP, id);
    List<Checkpoints.Effect> done = new ArrayList<>(c.snapshotTaken(OP, id, "op-" + id));
    for (TaskId h : holders) {
      done.addAll(c.snapshotTaken(h, id, "holder-" + id));
    }
    assertThat(done).anyMatch(e -> e instanceof Checkpoints.Persist<?, ?>);
    return c.persisted(id);
  }

  @Test
  void dueAfterTheIntervalAndNeverWhileOneIsInProgress() {
    assertThat(c.due(99)).isFalse();
    assertThat(c.due(100)).isTrue();
    List<Checkpoints.Effect> effects =
        c.trigger(100, "s", List.of(SRC), List.of(SRC, OP), List.of());
    assertThat(sends(effects))
        .containsExactly(new Checkpoints.Send(SRC, new CheckpointMessage.TriggerCheckpoint(1)));
    assertThat(c.inProgress()).isTrue();
    assertThat(c.due(1_000)).isFalse();
    assertThatThrownBy(() -> c.trigger(1_000, "s", List.of(), List.of(), List.of()))
        .hasMessageContaining("still in progress");
  }

  @Test
  void completeOnlyWithEverySnapshotAndEveryClientBarrierThenCommittedToAll() {
    c.trigger(100, "s", List.of(SRC), List.of(SRC, OP), List.of());
    assertThat(c.snapshotsTaken()).isZero();
    assertThat(c.snapshotTaken(SRC, 1, "a")).isEmpty();
    assertThat(c.snapshotsTaken()).isEqualTo(1);
    assertThat(c.snapshotTaken(OP, 1, "b")).as("client barriers missing").isEmpty();
    assertThat(c.clientBarrier(SRC, 1)).isEmpty();
    List<Checkpoints.Effect> persist = c.clientBarrier(OP, 1);
    assertThat(persist).hasSize(1).first().isInstanceOf(Checkpoints.Persist.class);
    assertThat(c.latest()).as("not before it is durable").isEmpty();
    assertThat(c.snapshotsTaken()).as("complete, being persisted").isEqualTo(2);
    List<Checkpoints.Effect> committed = c.persisted(1);
    assertThat(c.snapshotsTaken()).isZero();
    assertThat(sends(committed))
        .extracting(Checkpoints.Send::command)
        .containsOnly(new CheckpointMessage.CheckpointCommitted(1, 1));
    assertThat(c.latest()).get().extracting(Checkpoints.Completed::state).isEqualTo("s");
    assertThat(c.inProgress()).isFalse();
  }

  @Test
  void retainsTheNewestAndDiscardsWhatNoRetainedCheckpointShares() {
    complete(100, List.of(HOLDER));
    complete(200, List.of(HOLDER));
    List<Checkpoints.Effect> third = complete(300, List.of(HOLDER));
    // the holder's snapshot of checkpoint 1 is reused by 2 and 3: only the others go
    List<Object> discarded = new ArrayList<>();
    for (Checkpoints.Effect e : third) {
      if (e instanceof Checkpoints.Discard<?> d) {
        discarded.addAll(d.snapshots());
      }
    }
    assertThat(discarded).containsExactlyInAnyOrder("src-1", "op-1");
    assertThat(sends(third))
        .extracting(Checkpoints.Send::command)
        .contains(new CheckpointMessage.CheckpointCommitted(3, 2));
    assertThat(c.latest().get().snapshots()).containsEntry(HOLDER, "holder-1");
  }

  @Test
  void anAbandonedCheckpointTellsItsTasksDiscardsOnlyItsOwnSnapshotsAndTheNextTriggers() {
    complete(100, List.of(HOLDER));
    c.trigger(200, "s", List.of(SRC), List.of(SRC, OP), List.of(HOLDER));
    c.snapshotTaken(SRC, 2, "src-2");
    assertThat(c.abandonable()).isTrue();

    List<Checkpoints.Effect> abandoned = c.abandon(350);
    assertThat(sends(abandoned))
        .as("the tasks its barrier reaches; a holder has none")
        .containsExactlyInAnyOrder(
            new Checkpoints.Send(SRC, new CheckpointMessage.AbortCheckpoint(2)),
            new Checkpoints.Send(OP, new CheckpointMessage.AbortCheckpoint(2)));
    assertThat(abandoned)
        .as("the holder's snapshot is checkpoint 1's, which stays")
        .contains(new Checkpoints.Discard<>(2, List.of("src-2")));
    assertThat(c.inProgress()).isFalse();
    assertThat(c.snapshotTaken(OP, 2, "op-2")).as("late").isEmpty();
    assertThat(c.due(449)).as("an interval after the abandonment").isFalse();
    assertThat(c.due(450)).isTrue();
    assertThat(c.latest()).get().extracting(Checkpoints.Completed::id).isEqualTo(1L);

    complete(450, List.of(HOLDER));
    assertThat(c.latest()).get().extracting(Checkpoints.Completed::id).isEqualTo(3L);
  }

  @Test
  void aCheckpointBeingRecordedIsNotAbandonable() {
    c.trigger(100, "s", List.of(SRC), List.of(SRC, OP), List.of());
    c.snapshotTaken(SRC, 1, "a");
    c.snapshotTaken(OP, 1, "b");
    c.clientBarrier(SRC, 1);
    c.clientBarrier(OP, 1);
    assertThat(c.inProgress()).isTrue();
    assertThat(c.abandonable()).isFalse();
    assertThatThrownBy(() -> c.abandon(200)).hasMessageContaining("persisting 1");
  }

  @Test
  void aHolderStopsOnlyOnceNoRetainedCheckpointIncludesIt() {
    complete(100, List.of(HOLDER));
    assertThat(c.holderUnreferenced(HOLDER)).isEmpty();
    assertThat(complete(200, List.of())).noneMatch(e -> e instanceof Checkpoints.StopHolder);
    assertThat(complete(300, List.of())).contains(new Checkpoints.StopHolder(HOLDER));
  }

  /**
   * A task created and retired between two checkpoints is in none; if it sent output to the client
   * (a chained collecting sink), it stays, unreferenced, until a committed checkpoint has cut that
   * output as a holder's, or a rollback to a later checkpoint would lose it (seed 59 of {@code
   * koala verify --engine simulator --faults}, once the simulator ran the coordinator's own
   * decisions). Without such output it stops at once.
   */
  @Test
  void aHolderNoCheckpointHasIsKeptUntilOneCutsItsOutput() {
    complete(100, List.of());
    assertThat(c.holderUnreferenced(new TaskId(new OperatorId("op"), 9), false))
        .as("nothing to cut")
        .containsExactly(new Checkpoints.StopHolder(new TaskId(new OperatorId("op"), 9)));
    assertThat(c.holderUnreferenced(HOLDER, true)).as("its output is in no checkpoint").isEmpty();
    List<Checkpoints.Effect> trigger =
        c.trigger(200, "s", List.of(SRC), List.of(SRC, OP), List.of(HOLDER));
    assertThat(sends(trigger))
        .contains(new Checkpoints.Send(HOLDER, new CheckpointMessage.SnapshotHolder(2)));
    for (TaskId t : List.of(SRC, OP)) {
      c.snapshotTaken(t, 2, t + "-2");
      c.clientBarrier(t, 2);
    }
    assertThat(c.cutsAtSnapshot(HOLDER, 2)).isTrue();
    assertThat(c.snapshotTaken(HOLDER, 2, "holder-2")).hasSize(1);
    assertThat(c.persisted(2)).noneMatch(e -> e instanceof Checkpoints.StopHolder);
    assertThat(complete(300, List.of())).noneMatch(e -> e instanceof Checkpoints.StopHolder);
    assertThat(complete(400, List.of())).contains(new Checkpoints.StopHolder(HOLDER));
  }

  /**
   * A task retired since the last checkpoint sent output after its barrier; no owner references it
   * any more when the next checkpoint is triggered, yet that checkpoint asks it (its snapshot cuts
   * that output, seed 28 of {@code koala verify --faults}); later ones leave it out, and it stops
   * once no retained checkpoint has it.
   */
  @Test
  void anUnreferencedHolderIsAskedUntilARetainedCheckpointHasItsSnapshot() {
    c.trigger(100, "s", List.of(SRC), List.of(SRC, OP, HOLDER), List.of());
    for (TaskId t : List.of(SRC, OP, HOLDER)) {
      c.snapshotTaken(t, 1, t + "-1");
      c.clientBarrier(t, 1);
    }
    c.persisted(1);
    assertThat(c.holderUnreferenced(HOLDER)).as("checkpoint 1 has it").isEmpty();

    assertThat(sends(c.trigger(200, "s", List.of(SRC), List.of(SRC, OP), List.of(HOLDER))))
        .contains(new Checkpoints.Send(HOLDER, new CheckpointMessage.SnapshotHolder(2)));
    assertThat(c.cutsAtSnapshot(HOLDER, 2)).isTrue();
    for (TaskId t : List.of(SRC, OP)) {
      c.snapshotTaken(t, 2, t + "-2");
      c.clientBarrier(t, 2);
    }
    assertThat(c.snapshotTaken(HOLDER, 2, "holder-2")).hasSize(1);
    assertThat(c.persisted(2)).noneMatch(e -> e instanceof Checkpoints.StopHolder);

    for (long id = 3; id <= 4; id++) {
      assertThat(sends(c.trigger(id * 100, "s", List.of(SRC), List.of(SRC, OP), List.of(HOLDER))))
          .noneMatch(s -> s.task().equals(HOLDER));
      assertThat(c.cutsAtSnapshot(HOLDER, id)).isFalse();
      for (TaskId t : List.of(SRC, OP)) {
        c.snapshotTaken(t, id, t + "-" + id);
        c.clientBarrier(t, id);
      }
      List<Checkpoints.Effect> committed = c.persisted(id);
      assertThat(c.latest().get().snapshots()).doesNotContainKey(HOLDER);
      if (id == 3) {
        assertThat(committed)
            .as("checkpoint 2 has it")
            .noneMatch(e -> e instanceof Checkpoints.StopHolder);
      } else {
        assertThat(committed).contains(new Checkpoints.StopHolder(HOLDER));
      }
    }
  }

  @Test
  void aTaskThatFinishesWithoutItsBarrierIsAskedDirectlyAndCutAtItsSnapshot() {
    c.trigger(100, "s", List.of(SRC), List.of(SRC, OP), List.of());
    assertThat(sends(c.taskFinished(OP)))
        .containsExactly(new Checkpoints.Send(OP, new CheckpointMessage.SnapshotHolder(1)));
    assertThat(c.cutsAtSnapshot(OP, 1)).isTrue();
    assertThat(c.cutsAtSnapshot(SRC, 1)).isFalse();
    c.snapshotTaken(SRC, 1, "a");
    c.clientBarrier(SRC, 1);
    assertThat(c.snapshotTaken(OP, 1, "b")).hasSize(1);
  }

  @Test
  void aRollbackAbandonsTheCheckpointInProgressAndAnUnusableOneFallsBack() {
    complete(100, List.of());
    complete(200, List.of());
    c.trigger(300, "s", List.of(SRC), List.of(SRC, OP), List.of());
    c.snapshotTaken(SRC, 3, "src-3");
    List<Checkpoints.Effect> rolled = c.rolledBack(350);
    assertThat(rolled).singleElement().isEqualTo(new Checkpoints.Discard<>(3, List.of("src-3")));
    assertThat(c.inProgress()).isFalse();
    assertThat(c.due(449)).isFalse();
    assertThat(c.due(450)).isTrue();
    assertThat(c.snapshotTaken(OP, 3, "late")).as("a late report is ignored").isEmpty();
    assertThat(c.latest().get().id()).isEqualTo(2);
    c.unusable(2);
    assertThat(c.latest().get().id()).as("falls back to the previous").isEqualTo(1);
    c.trigger(450, "s", List.of(SRC), List.of(SRC), List.of());
    assertThat(c.pendingId()).as("ids are never reused").isEqualTo(4);
  }

  @Test
  void settingsAreChecked() {
    assertThatThrownBy(() -> new Checkpoints.Settings(0, 2)).hasMessageContaining("interval");
    assertThatThrownBy(() -> new Checkpoints.Settings(10, 0)).hasMessageContaining("retained");
  }
}
