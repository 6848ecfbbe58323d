package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Exactly-once publication of client results: only what a committed checkpoint covers. */
class OutputCommitTest {
  private static final TaskId A = new TaskId(new OperatorId("sink"), 0);
  private static final TaskId B = new TaskId(new OperatorId("sink"), 1);

  @Test
  void resultsArePublishedWhenTheirCheckpointIsCommittedAndLostOnRollback() {
    OutputCommit<Integer> out = new OutputCommit<>();
    out.received(A, "s", List.of(1, 2));
    out.cut(A, 1);
    out.received(A, "s", List.of(3)); // after A's barrier 1
    out.received(B, "s", List.of(10));
    out.cut(B, 1);
    assertThat(out.committed(1)).isEqualTo(Map.of("s", List.of(1, 2, 10)));
    assertThat(out.committed(1)).as("published once").isEmpty();
    assertThat(out.unpublished()).isEqualTo(1);
    out.rolledBack();
    assertThat(out.unpublished()).as("3 will be produced again").isZero();
    out.received(A, "s", List.of(3));
    assertThat(out.ended()).isEqualTo(Map.of("s", List.of(3)));
  }

  @Test
  void aLaterCommitPublishesEveryEarlierCheckpoint() {
    OutputCommit<String> out = new OutputCommit<>();
    out.received(A, "x", List.of("a"));
    out.cut(A, 1);
    out.received(A, "y", List.of("b"));
    out.cut(A, 2);
    out.received(A, "y", List.of("c"));
    out.cut(A, 3);
    assertThat(out.committed(2)).isEqualTo(Map.of("x", List.of("a"), "y", List.of("b")));
    assertThat(out.unpublished()).isEqualTo(1);
  }
}
