package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.keys.KeyLocations;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.TaskSetup;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which buckets a keyed task owns, and which may have state elsewhere, through hand-overs. */
class BucketOwnershipTest {
  /** Task 1 of an operator of 8 buckets routed 0,1,0,1,...: it owns the odd ones. */
  private final BucketOwnership ownership =
      new BucketOwnership(
          new TaskSetup(
              "job",
              new TaskId(new OperatorId("count"), 1),
              2,
              8,
              List.of(),
              List.of(),
              List.of(0, 1, 0, 1, 0, 1, 0, 1),
              99,
              new ChannelSettings(16, 1 << 20, 5, 64)));

  @Test
  void atDeploymentItOwnsWhatTheRoutingGivesItWithAllTheirStateHere() {
    assertThat(ownership.buckets()).isEqualTo(8);
    assertThat(ownership.owned()).containsExactly(1, 3, 5, 7);
    for (int b = 0; b < 8; b++) {
      assertThat(ownership.elsewhere(b)).as("bucket %d", b).isFalse();
    }
  }

  @Test
  void aBucketTakenOverWithStateElsewhereIsElsewhereUntilAllOfItArrived() {
    assertThat(ownership.tookOver(2, false)).isTrue();
    assertThat(ownership.owns(2)).isTrue();
    assertThat(ownership.elsewhere(2)).isTrue();
    ownership.arrived(2, false);
    assertThat(ownership.elsewhere(2)).isTrue();
    ownership.arrived(2, true);
    assertThat(ownership.elsewhere(2)).isFalse();
    assertThat(ownership.tookOver(4, true)).isFalse();

    ownership.gaveUp(3);
    assertThat(ownership.owns(3)).isFalse();
    assertThat(ownership.owned()).containsExactly(1, 2, 4, 5, 7);
  }

  @Test
  void aRestoreTakesTheBucketsTheLookupTableOwns() {
    ownership.tookOver(2, false);
    ownership.restore(new KeyLocations(1, new int[] {0, 6}));
    assertThat(ownership.owned()).containsExactly(0, 6);
    assertThat(ownership.elsewhere(2)).isFalse();
    assertThat(ownership.elsewhere(0)).isFalse();
  }
}
