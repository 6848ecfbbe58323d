package io.koala.task;

import io.koala.keys.KeyLocations;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a task's snapshot keeps besides its store (DESIGN §8): the checkpoint it belongs to, its
 * event time, the positions of the source splits it read, and the in-memory part of its key lookup
 * table, and what its sink writer needs to publish after a restore. Encoded in a fixed, versioned
 * binary form (not Kryo: a checkpoint outlives the classes of the process that wrote it).
 *
 * @param checkpointId the barrier the snapshot was taken at
 * @param watermark the watermark the task had applied
 * @param forwardedWatermark the last watermark it sent downstream
 * @param idle whether it had told downstream it is idle
 * @param endedInputs the input channels whose end it had consumed
 * @param positions per source split read by the task: its position ({@link
 *     io.koala.connector.SourceReader#positions})
 * @param locations the lookup table's in-memory part; null for a task without keyed state
 * @param sinkStates per sink operator of the task (by name): its writer's {@link
 *     io.koala.connector.SinkWriter#pendingState} at the barrier; empty when none returned any
 */
public record TaskCheckpoint(
    long checkpointId,
    long watermark,
    long forwardedWatermark,
    boolean idle,
    List<Integer> endedInputs,
    Map<String, Long> positions,
    KeyLocations.Snapshot locations,
    Map<String, byte[]> sinkStates) {

  // 1: a source's positions were numbered partitions; 2: no sink states
  private static final int VERSION = 3;

  public TaskCheckpoint {
    endedInputs = List.copyOf(endedInputs);
    positions = Collections.unmodifiableMap(new TreeMap<>(positions));
    TreeMap<String, byte[]> sinks = new TreeMap<>();
    sinkStates.forEach((name, state) -> sinks.put(name, state.clone()));
    sinkStates = Collections.unmodifiableMap(sinks);
  }

  /** A task checkpoint without sink states. */
  public TaskCheckpoint(
      long checkpointId,
      long watermark,
      long forwardedWatermark,
      boolean idle,
      List<Integer> endedInputs,
      Map<String, Long> positions,
      KeyLocations.Snapshot locations) {
    this(
        checkpointId,
        watermark,
        forwardedWatermark,
        idle,
        endedInputs,
        positions,
        locations,
        Map.of());
  }

  /** The saved state of sink operator {@code name}'s writer (a copy), or null when none. */
  public byte[] sinkState(String name) {
    byte[] state = sinkStates.get(name);
    return state == null ? null : state.clone();
  }

  /** The encoded form. */
  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(VERSION);
      out.writeLong(checkpointId);
      out.writeLong(watermark);
      out.writeLong(forwardedWatermark);
      out.writeBoolean(idle);
      out.writeInt(endedInputs.size());
      for (int ch : endedInputs) {
        out.writeInt(ch);
      }
      out.writeInt(positions.size());
      for (Map.Entry<String, Long> p : positions.entrySet()) {
        out.writeUTF(p.getKey());
        out.writeLong(p.getValue());
      }
      out.writeBoolean(locations != null);
      if (locations != null) {
        out.writeInt(locations.buckets().size());
        for (KeyLocations.OwnedBucket b : locations.buckets()) {
          out.writeInt(b.bucket());
          writeBytes(out, b.localFilter());
          out.writeInt(b.defaultHolder());
          writeBytes(out, b.defaultFilter());
          writeBytes(out, b.drainCursor());
          out.writeBoolean(b.drained());
        }
      }
      out.writeInt(sinkStates.size());
      for (Map.Entry<String, byte[]> s : sinkStates.entrySet()) {
        out.writeUTF(s.getKey());
        writeBytes(out, s.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes {@link #encode}'s form.
   *
   * @throws IllegalArgumentException when the bytes are not a task checkpoint of a known version
   */
  public static TaskCheckpoint decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int version = in.readInt();
      if (version < 1 || version > VERSION) {
        throw new IllegalArgumentException(
            "task checkpoint format version " + version + ", this version reads 1 to " + VERSION);
      }
      long id = in.readLong();
      long watermark = in.readLong();
      long forwarded = in.readLong();
      boolean idle = in.readBoolean();
      int ended = in.readInt();
      List<Integer> endedInputs = new ArrayList<>(ended);
      for (int i = 0; i < ended; i++) {
        endedInputs.add(in.readInt());
      }
      int n = in.readInt();
      Map<String, Long> positions = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        String split = version == 1 ? Long.toString(in.readLong()) : in.readUTF();
        positions.put(split, in.readLong());
      }
      KeyLocations.Snapshot locations = null;
      if (in.readBoolean()) {
        int buckets = in.readInt();
        List<KeyLocations.OwnedBucket> owned = new ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
          owned.add(
              new KeyLocations.OwnedBucket(
                  in.readInt(),
                  readBytes(in),
                  in.readInt(),
                  readBytes(in),
                  readBytes(in),
                  in.readBoolean()));
        }
        locations = new KeyLocations.Snapshot(owned);
      }
      Map<String, byte[]> sinkStates = new TreeMap<>();
      if (version >= 3) {
        int sinks = in.readInt();
        for (int i = 0; i < sinks; i++) {
          String name = in.readUTF();
          byte[] state = readBytes(in);
          if (state == null) {
            throw new IllegalArgumentException("sink '" + name + "' has a null state");
          }
          sinkStates.put(name, state);
        }
      }
      if (in.available() > 0) {
        throw new IllegalArgumentException(in.available() + " bytes after a task checkpoint");
      }
      return new TaskCheckpoint(
          id, watermark, forwarded, idle, endedInputs, positions, locations, sinkStates);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated task checkpoint", e);
    }
  }

  /** Equal fields, sink states compared by content. */
  @Override
  public boolean equals(Object o) {
    return o instanceof TaskCheckpoint t
        && checkpointId == t.checkpointId
        && watermark == t.watermark
        && forwardedWatermark == t.forwardedWatermark
        && idle == t.idle
        && endedInputs.equals(t.endedInputs)
        && positions.equals(t.positions)
        && Objects.equals(locations, t.locations)
        && sinkStates.keySet().equals(t.sinkStates.keySet())
        && sinkStates.entrySet().stream()
            .allMatch(e -> Arrays.equals(e.getValue(), t.sinkStates.get(e.getKey())));
  }

  @Override
  public int hashCode() {
    return Objects.hash(checkpointId, watermark, positions, sinkStates.keySet());
  }

  @Override
  public String toString() {
    StringBuilder sinks = new StringBuilder();
    sinkStates.forEach((n, b) -> sinks.append(n).append('=').append(b.length).append(" B "));
    return "TaskCheckpoint[checkpointId="
        + checkpointId
        + ", watermark="
        + watermark
        + ", forwardedWatermark="
        + forwardedWatermark
        + ", idle="
        + idle
        + ", endedInputs="
        + endedInputs
        + ", positions="
        + positions
        + ", locations="
        + locations
        + ", sinkStates=["
        + sinks.toString().trim()
        + "]]";
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b == null ? -1 : b.length);
    if (b != null) {
      out.write(b);
    }
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }
}
