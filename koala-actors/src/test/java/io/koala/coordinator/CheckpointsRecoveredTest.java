package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link Checkpoints#recovered}: a coordinator resuming from its journal in a new process. */
class CheckpointsRecoveredTest {
  static final TaskId SOURCE = new TaskId(new OperatorId("src"), 0);

  static Checkpoints.Completed<String, String> completed(long id) {
    return new Checkpoints.Completed<>(id, id * 10, Map.of(SOURCE, "f" + id), Set.of(), "s" + id);
  }

  @Test
  void resumesWithTheJournaledCheckpointsAndNumbersAboveTheLastId() {
    Checkpoints<String, String> c = new Checkpoints<>(new Checkpoints.Settings(100, 2), 0);
    c.recovered(List.of(completed(3), completed(5)), 7);
    assertThat(c.latest()).map(Checkpoints.Completed::id).contains(5L);
    assertThat(c.retained()).extracting(Checkpoints.Completed::id).containsExactly(3L, 5L);

    c.trigger(1_000, "now", List.of(SOURCE), List.of(SOURCE), List.of());
    assertThat(c.pendingId()).isEqualTo(8);
    c.clientBarrier(SOURCE, 8);
    List<Checkpoints.Effect> effects = c.snapshotTaken(SOURCE, 8, "f8");
    assertThat(effects).singleElement().isInstanceOf(Checkpoints.Persist.class);
    effects = c.persisted(8);
    // the oldest recovered one is discarded as the retention rule says
    assertThat(effects)
        .filteredOn(e -> e instanceof Checkpoints.Discard<?>)
        .singleElement()
        .isEqualTo(new Checkpoints.Discard<>(3, List.of("f3")));
    assertThat(c.retained()).extracting(Checkpoints.Completed::id).containsExactly(5L, 8L);
  }

  @Test
  void keepsOnlyAsManyAsRetainedAndRefusesDisorder() {
    Checkpoints<String, String> c = new Checkpoints<>(new Checkpoints.Settings(100, 1), 0);
    c.recovered(List.of(completed(1), completed(2)), 2);
    assertThat(c.retained()).extracting(Checkpoints.Completed::id).containsExactly(2L);
    assertThatThrownBy(() -> c.recovered(List.of(), 2)).isInstanceOf(IllegalStateException.class);

    Checkpoints<String, String> d = new Checkpoints<>(new Checkpoints.Settings(100, 2), 0);
    assertThatThrownBy(() -> d.recovered(List.of(completed(2), completed(1)), 2))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
