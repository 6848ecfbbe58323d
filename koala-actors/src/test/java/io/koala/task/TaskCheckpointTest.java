package io.koala.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.koala.keys.KeyLocations;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskCheckpointTest {

  @Test
  void roundTripsEveryField() {
    KeyLocations.Snapshot klt =
        new KeyLocations.Snapshot(
            List.of(
                new KeyLocations.OwnedBucket(3, new byte[] {1, 2}, 0, null, null, false),
                new KeyLocations.OwnedBucket(
                    9, new byte[] {3}, 4, new byte[] {5, 6}, new byte[] {7}, true)));
    TaskCheckpoint cp =
        new TaskCheckpoint(
            12, 1_000, 990, true, List.of(4, 5), Map.of("2", 77L, "topic-10", 5L), klt);
    TaskCheckpoint back = TaskCheckpoint.decode(cp.encode());
    assertThat(back.checkpointId()).isEqualTo(12);
    assertThat(back.watermark()).isEqualTo(1_000);
    assertThat(back.forwardedWatermark()).isEqualTo(990);
    assertThat(back.idle()).isTrue();
    assertThat(back.endedInputs()).containsExactly(4, 5);
    assertThat(back.positions()).containsExactly(entry("2", 77L), entry("topic-10", 5L));
    assertThat(back.locations().buckets()).hasSize(2);
    KeyLocations.OwnedBucket b = back.locations().buckets().get(1);
    assertThat(b.bucket()).isEqualTo(9);
    assertThat(b.defaultHolder()).isEqualTo(4);
    assertThat(b.defaultFilter()).containsExactly(5, 6);
    assertThat(b.drainCursor()).containsExactly(7);
    assertThat(b.drained()).isTrue();
    assertThat(back.locations().buckets().get(0).defaultFilter()).isNull();
    assertThat(
            TaskCheckpoint.decode(
                    new TaskCheckpoint(1, 0, 0, false, List.of(), Map.of(), null).encode())
                .locations())
        .isNull();
  }

  @Test
  void sinkStatesRoundTripByNameAndAreCopied() {
    byte[] a = {1, 2, 3};
    TaskCheckpoint cp =
        new TaskCheckpoint(
            5, 0, 0, false, List.of(), Map.of(), null, Map.of("out", a, "audit", new byte[0]));
    a[0] = 9; // the checkpoint took a copy
    TaskCheckpoint back = TaskCheckpoint.decode(cp.encode());
    assertThat(back.sinkState("out")).containsExactly(1, 2, 3);
    assertThat(back.sinkState("audit")).isEmpty();
    assertThat(back.sinkState("other")).isNull();
    assertThat(back).isEqualTo(cp);
    back.sinkState("out")[1] = 7; // and hands out copies
    assertThat(back.sinkState("out")).containsExactly(1, 2, 3);
    assertThat(new TaskCheckpoint(5, 0, 0, false, List.of(), Map.of(), null).sinkStates())
        .isEmpty();
  }

  @Test
  void aVersionTwoCheckpointHasNoSinkStates() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(2); // version 2: split positions, no sink states
      out.writeLong(8); // checkpoint
      out.writeLong(100); // watermark
      out.writeLong(90); // forwarded watermark
      out.writeBoolean(true); // idle
      out.writeInt(1); // ended inputs
      out.writeInt(3);
      out.writeInt(1); // positions
      out.writeUTF("orders-2");
      out.writeLong(55);
      out.writeBoolean(false); // no lookup table
    }
    TaskCheckpoint cp = TaskCheckpoint.decode(bytes.toByteArray());
    assertThat(cp.checkpointId()).isEqualTo(8);
    assertThat(cp.idle()).isTrue();
    assertThat(cp.endedInputs()).containsExactly(3);
    assertThat(cp.positions()).containsExactly(entry("orders-2", 55L));
    assertThat(cp.sinkStates()).isEmpty();
  }

  @Test
  void anUnknownVersionOrTruncatedBytesAreRefused() {
    byte[] bytes = new TaskCheckpoint(1, 0, 0, false, List.of(), Map.of(), null).encode();
    byte[] other = bytes.clone();
    ByteBuffer.wrap(other).putInt(99);
    assertThatThrownBy(() -> TaskCheckpoint.decode(other)).hasMessageContaining("version 99");
    assertThatThrownBy(() -> TaskCheckpoint.decode(Arrays.copyOf(bytes, bytes.length - 3)))
        .hasMessageContaining("truncated");
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 2);
    assertThatThrownBy(() -> TaskCheckpoint.decode(longer)).hasMessageContaining("after");
  }

  @Test
  void aVersionOneCheckpointReadsItsPartitionOffsetsAsSplitPositions() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(1); // version 1: offsets of numbered partitions
      out.writeLong(7); // checkpoint
      out.writeLong(100); // watermark
      out.writeLong(90); // forwarded watermark
      out.writeBoolean(false); // idle
      out.writeInt(0); // ended inputs
      out.writeInt(2); // offsets
      out.writeLong(1);
      out.writeLong(33);
      out.writeLong(3);
      out.writeLong(44);
      out.writeBoolean(false); // no lookup table
    }
    TaskCheckpoint cp = TaskCheckpoint.decode(bytes.toByteArray());
    assertThat(cp.checkpointId()).isEqualTo(7);
    assertThat(cp.positions()).containsExactly(entry("1", 33L), entry("3", 44L));
    assertThat(cp.sinkStates()).isEmpty();
  }
}
