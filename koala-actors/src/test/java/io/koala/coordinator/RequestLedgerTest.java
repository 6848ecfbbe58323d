package io.koala.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RequestLedgerTest {

  @Test
  void sequenceNumbersContinueAboveTheJournals() {
    RequestLedger l = new RequestLedger(0);
    l.recovered(7, List.of(5L, 7L));
    assertThat(l.open()).containsExactly(5L, 7L);
    assertThat(l.accept()).isEqualTo(8);
    assertThat(l.open()).containsExactly(5L, 7L, 8L);
  }

  @Test
  void aCompletedRequestIsDoneOnlyOnceACheckpointTriggeredAfterItCommits() {
    RequestLedger l = new RequestLedger(0);
    long a = l.accept();
    l.triggered(1); // before it completed: does not cover it
    l.completed(a);
    assertThat(l.committed(1)).isEmpty();
    l.triggered(2);
    assertThat(l.open()).containsExactly(a);
    assertThat(l.committed(2)).containsExactly(a);
    assertThat(l.open()).isEmpty();
    assertThat(l.committed(2)).isEmpty();
  }

  @Test
  void aRollbackForgetsCompletionsNotYetCovered() {
    RequestLedger l = new RequestLedger(0);
    long a = l.accept();
    l.completed(a);
    l.triggered(3); // abandoned by the rollback
    l.rolledBack();
    assertThat(l.committed(3)).isEmpty();
    assertThat(l.open()).containsExactly(a);
    l.completed(a); // ran again
    l.triggered(4);
    assertThat(l.committed(4)).containsExactly(a);
  }

  @Test
  void aCommitReleasesOlderCoveragesToo() {
    RequestLedger l = new RequestLedger(0);
    long a = l.accept();
    long b = l.accept();
    l.completed(a);
    l.triggered(1);
    l.completed(b);
    l.triggered(2);
    assertThat(l.committed(2)).containsExactly(a, b);
  }

  @Test
  void endedAndFinishedRequestsAreDoneAtOnce() {
    RequestLedger l = new RequestLedger(0);
    long a = l.accept();
    long b = l.accept();
    assertThat(l.ended(a)).containsExactly(a);
    assertThat(l.ended(a)).isEmpty();
    l.completed(b);
    assertThat(l.finished()).containsExactly(b);
    assertThat(l.open()).isEmpty();
  }
}
