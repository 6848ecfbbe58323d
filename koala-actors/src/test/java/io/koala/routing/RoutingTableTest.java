package io.koala.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.store.KeyLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bucket math and routing tables of keyed edges. */
class RoutingTableTest {
  private static final int B = 128;

  @Test
  void evenAssignmentIsContiguousAndBalancedForEveryParallelism() {
    for (int p = 1; p <= B; p++) {
      RoutingTable table = RoutingTable.even(B, p);
      assertThat(table.buckets()).isEqualTo(B);
      int[] owned = new int[p];
      int previous = 0;
      for (int b = 0; b < B; b++) {
        int owner = table.owner(b);
        assertThat(owner).as("p=%d bucket %d", p, b).isBetween(0, p - 1);
        // Contiguous ranges in task order: the owner never decreases and never skips a task.
        assertThat(owner - previous).as("p=%d bucket %d", p, b).isBetween(0, 1);
        assertThat(table.owns(owner, b)).isTrue();
        owned[owner]++;
        previous = owner;
      }
      assertThat(table.owner(0)).isZero();
      assertThat(table.owner(B - 1)).isEqualTo(p - 1);
      for (int t = 0; t < p; t++) {
        assertThat(owned[t]).as("p=%d task %d", p, t).isBetween(B / p, (B + p - 1) / p);
      }
    }
  }

  @Test
  void evenAssignmentRejectsParallelismOutsideOneToBuckets() {
    assertThatThrownBy(() -> RoutingTable.even(B, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parallelism 0");
    assertThatThrownBy(() -> RoutingTable.even(B, B + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parallelism 129");
    assertThatThrownBy(() -> RoutingTable.even(0, 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void explicitTableIsValidatedAgainstTheTaskCount() {
    assertThatThrownBy(() -> RoutingTable.of(new int[] {0, 1, 2}, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket 2")
        .hasMessageContaining("task 2");
    assertThatThrownBy(() -> RoutingTable.of(new int[] {0, -1}, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bucket 1");
    RoutingTable ok = RoutingTable.of(new int[] {1, 0, 1}, 2);
    assertThat(ok.owner(0)).isEqualTo(1);
    assertThat(ok.owner(1)).isZero();
    assertThat(ok.owns(1, 2)).isTrue();
    assertThat(ok.owns(0, 2)).isFalse();
  }

  @Test
  void explicitTableIsACopyAndHandsOutCopies() {
    int[] owners = {0, 1, 1, 0};
    RoutingTable table = RoutingTable.of(owners, 2);
    owners[0] = 1;
    assertThat(table.owner(0)).isZero();
    int[] out = table.toArray();
    out[1] = 0;
    assertThat(table.owner(1)).isEqualTo(1);
    assertThat(table.toArray()).containsExactly(0, 1, 1, 0);
  }

  @Test
  void equalityIsByContent() {
    RoutingTable even = RoutingTable.even(8, 2);
    RoutingTable same = RoutingTable.of(new int[] {0, 0, 0, 0, 1, 1, 1, 1}, 2);
    RoutingTable other = RoutingTable.of(new int[] {0, 0, 0, 1, 1, 1, 1, 1}, 2);
    assertThat(even).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo(other);
    assertThat(even).isNotEqualTo(RoutingTable.even(8, 4));
    assertThat(even.toString()).contains("[0, 0, 0, 0, 1, 1, 1, 1]");
  }

  @Test
  void bucketOfIsMurmurModBucketsAndAlwaysInRange() {
    for (int i = 0; i < 2_000; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      int bucket = Buckets.bucketOf(key, B);
      assertThat(bucket).isBetween(0, B - 1);
      assertThat(bucket).isEqualTo(Math.floorMod(Murmur3.hash32(key), B));
    }
    // "hello" hashes to 0x248bfa47: 613153351 mod 128 = 71.
    assertThat(Buckets.bucketOf("hello".getBytes(StandardCharsets.UTF_8), B)).isEqualTo(71);
  }

  @Test
  void bucketOfNegativeHashIsStillNonNegative() {
    // Search a key whose hash is negative, so floorMod (not %) matters.
    for (int i = 0; ; i++) {
      byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
      if (Murmur3.hash32(key) < 0) {
        assertThat(Buckets.bucketOf(key, 100)).isBetween(0, 99);
        return;
      }
    }
  }

  @Test
  void bucketCountMustBeWithinTheKeyLayout() {
    assertThat(Buckets.checkBucketCount(1)).isEqualTo(1);
    assertThat(Buckets.checkBucketCount(KeyLayout.MAX_BUCKETS)).isEqualTo(KeyLayout.MAX_BUCKETS);
    assertThatThrownBy(() -> Buckets.checkBucketCount(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Buckets.checkBucketCount(KeyLayout.MAX_BUCKETS + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
