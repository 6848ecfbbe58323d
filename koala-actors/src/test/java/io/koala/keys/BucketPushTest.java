package io.koala.keys;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.protocol.StateChunk;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bucket pushed whole: every store entry of it, and only of it, arrives at the receiver, in
 * chunks that each fit a frame's budget, and the receiver counts keys, not entries.
 */
class BucketPushTest {
  static final int BUCKET = 7;
  static final int OTHER = 8;
  static final int VALUE_BYTES = 50_000;

  @Test
  void everyEntryOfTheBucketArrivesInChunksWithinTheBudget() {
    int keys = 10;
    try (InMemoryStateStore sender = new InMemoryStateStore();
        InMemoryStateStore receiver = new InMemoryStateStore()) {
      try (WriteTxn txn = sender.beginWrite()) {
        for (int i = 0; i < keys; i++) {
          byte[] key = {(byte) i};
          // two states of each key: two entries, one key
          txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key, 1, new byte[0]), value(i));
          txn.put(Table.STATE, KeyLayout.stateKey(BUCKET, key, 2, new byte[0]), new byte[] {1});
          txn.put(Table.STATE, KeyLayout.stateKey(OTHER, key, 1, new byte[0]), new byte[] {2});
        }
        txn.commit();
      }
      List<StateChunk> chunks;
      try (ReadTxn txn = sender.beginRead()) {
        chunks = BucketPush.chunks(txn, BUCKET);
      }
      assertThat(chunks).as("ten values of 50 KB do not fit one chunk").hasSizeGreaterThan(1);
      long keysWritten = 0;
      long bytesWritten = 0;
      try (WriteTxn txn = receiver.beginWrite()) {
        for (StateChunk c : chunks) {
          long bytes = 0;
          for (int i = 0; i < c.keys().size(); i++) {
            bytes += c.keys().get(i).length + c.values().get(i).length;
          }
          assertThat(bytes).isLessThanOrEqualTo(StateServing.CHUNK_BYTES + VALUE_BYTES + 100);
          BucketPush.Written w = BucketPush.install(txn, c);
          assertThat(w.bytes()).isEqualTo(bytes);
          keysWritten += w.keys();
          bytesWritten += w.bytes();
        }
        txn.commit();
      }
      assertThat(keysWritten).isEqualTo(keys);
      assertThat(entries(receiver, BUCKET)).hasSize(2 * keys);
      assertThat(entries(receiver, OTHER)).as("another bucket's state stays").isEmpty();
      try (ReadTxn txn = receiver.beginRead()) {
        for (int i = 0; i < keys; i++) {
          byte[] key = {(byte) i};
          assertThat(txn.get(Table.STATE, KeyLayout.stateKey(BUCKET, key, 1, new byte[0])))
              .isEqualTo(value(i));
        }
      }
      assertThat(bytesWritten).isGreaterThan((long) keys * VALUE_BYTES);
    }
  }

  private static byte[] value(int i) {
    byte[] v = new byte[VALUE_BYTES];
    v[0] = (byte) i;
    return v;
  }

  private static List<byte[]> entries(InMemoryStateStore store, int bucket) {
    List<byte[]> out = new ArrayList<>();
    try (ReadTxn txn = store.beginRead()) {
      txn.scan(
          Table.STATE,
          KeyLayout.bucketPrefix(bucket),
          (k, v) -> {
            out.add(k);
            return true;
          });
    }
    return out;
  }
}
