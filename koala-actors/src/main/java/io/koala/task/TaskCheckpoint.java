package io.koala.task;

import io.koala.keys.KeyLocations;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a task's snapshot keeps besides its store (DESIGN §8): the checkpoint it belongs to, its
 * event time, the positions of the source splits it read, and the in-memory part of its key lookup
 * table. Encoded in a fixed, versioned binary form (not Kryo: a checkpoint outlives the classes of
 * the process that wrote it).
 *
 * @param checkpointId the barrier the snapshot was taken at
 * @param watermark the watermark the task had applied
 * @param forwardedWatermark the last watermark it sent downstream
 * @param idle whether it had told downstream it is idle
 * @param endedInputs the input channels whose end it had consumed
 * @param positions per source split read by the task: its position ({@link
 *     io.koala.connector.SourceReader#positions})
 * @param locations the lookup table's in-memory part; null for a task without keyed state
 */
public record TaskCheckpoint(
    long checkpointId,
    long watermark,
    long forwardedWatermark,
    boolean idle,
    List<Integer> endedInputs,
    Map<String, Long> positions,
    KeyLocations.Snapshot locations) {

  private static final int VERSION = 2; // 1: a source's positions were numbered partitions

  public TaskCheckpoint {
    endedInputs = List.copyOf(endedInputs);
    positions = Collections.unmodifiableMap(new TreeMap<>(positions));
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
      if (version != VERSION && version != 1) {
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
      if (in.available() > 0) {
        throw new IllegalArgumentException(in.available() + " bytes after a task checkpoint");
      }
      return new TaskCheckpoint(id, watermark, forwarded, idle, endedInputs, positions, locations);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated task checkpoint", e);
    }
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
