package io.koala.runtime.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.runtime.internal.journal.JournalEvent.CheckpointCompleted;
import io.koala.runtime.internal.journal.JournalEvent.CheckpointDiscarded;
import io.koala.runtime.internal.journal.JournalEvent.RequestAccepted;
import io.koala.runtime.internal.journal.JournalEvent.RequestFinished;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The journal's state as a pure value: every event, its preconditions, retention. */
class JournalStateTest {
  private static Blob blob(int n) {
    return Blob.of(new byte[] {(byte) n, 1, 2});
  }

  @Test
  void retentionKeepsTheNewestCheckpoints() {
    JournalState s = JournalState.EMPTY;
    for (int id = 1; id <= 5; id++) {
      assertThat(s.evictedBy(3)).hasSize(id > 3 ? 1 : 0);
      s = s.updated(new CheckpointCompleted(id, blob(id), 3));
    }
    assertThat(s.checkpointIds()).containsExactly(3L, 4L, 5L);
    assertThat(s.lastCheckpointId()).isEqualTo(5);
    assertThat(s.latest().orElseThrow().metadata()).isEqualTo(blob(5));
    assertThat(s.evictedBy(1)).containsExactly(3L, 4L, 5L);
    // a smaller retain drops more at once
    assertThat(s.updated(new CheckpointCompleted(6, blob(6), 1)).checkpointIds())
        .containsExactly(6L);
  }

  @Test
  void discardDropsOneCheckpointAndKeepsTheLastId() {
    JournalState s =
        JournalState.EMPTY
            .updated(new CheckpointCompleted(1, blob(1), 3))
            .updated(new CheckpointCompleted(2, blob(2), 3))
            .updated(new CheckpointDiscarded(2));
    assertThat(s.checkpointIds()).containsExactly(1L);
    assertThat(s.lastCheckpointId()).isEqualTo(2);
    assertThat(s.updated(new CheckpointDiscarded(7))).isEqualTo(s);
    assertThatThrownBy(() -> s.updated(new CheckpointCompleted(2, blob(2), 3)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not above");
  }

  @Test
  void coordinatorStartsAreCountedAndAnEndIsKeptThroughLaterEvents() {
    JournalState s =
        JournalState.EMPTY
            .updated(new JournalEvent.CoordinatorStarted())
            .updated(new CheckpointCompleted(1, blob(1), 2))
            .updated(new JournalEvent.CoordinatorStarted());
    assertThat(s.incarnations()).isEqualTo(2);
    assertThat(s.endedStatus()).isNull();
    JournalState ended =
        s.updated(new JournalEvent.JobEnded("FAILED", "task count#0 failed"))
            .updated(new CheckpointDiscarded(1));
    assertThat(ended.endedStatus()).isEqualTo("FAILED");
    assertThat(ended.endedError()).isEqualTo("task count#0 failed");
    assertThat(ended.incarnations()).isEqualTo(2);
    assertThat(ended.lastCheckpointId()).isEqualTo(1);
    assertThatThrownBy(() -> new JournalEvent.JobEnded("", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void requestsOpenAndFinish() {
    JournalState s =
        JournalState.EMPTY
            .updated(new RequestAccepted(1, blob(1)))
            .updated(new RequestAccepted(2, blob(2)))
            .updated(new RequestFinished(1));
    assertThat(s.requestSeqs()).containsExactly(2L);
    assertThat(s.request(2).orElseThrow().request()).isEqualTo(blob(2));
    assertThat(s.lastRequestSeq()).isEqualTo(2);
    assertThatThrownBy(() -> s.updated(new RequestAccepted(2, blob(2))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void blobsAreImmutableValues() {
    byte[] bytes = {1, 2, 3};
    Blob b = Blob.of(bytes);
    bytes[0] = 9;
    b.bytes()[1] = 9;
    assertThat(b.bytes()).containsExactly(1, 2, 3);
    assertThat(b).isEqualTo(Blob.of(new byte[] {1, 2, 3})).hasSameHashCodeAs(Blob.of(b.bytes()));
  }

  @Test
  void theStateRejectsUnorderedContents() {
    assertThatThrownBy(
            () ->
                new JournalState(
                    5,
                    0,
                    List.of(
                        new JournalState.Checkpoint(3, blob(3)),
                        new JournalState.Checkpoint(2, blob(2))),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new JournalState(1, 0, List.of(new JournalState.Checkpoint(3, blob(3))), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
