package io.koala.task;

import io.koala.plan.TaskId;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateServerAddress;
import io.koala.protocol.TaskSetup;
import io.koala.store.KeyLayout;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;

/**
 * When a copy a holder keeps of a key this task installed may go (DESIGN §6.7, C4, K5), and
 * deleting the copies owners release here. Without checkpoints, an install's copies are released
 * with the reply's other keys, in one message; with checkpoints, an install is noted in the store
 * under the last checkpoint before it, and the copies installed before the barrier of the oldest
 * checkpoint still restorable are released when a checkpoint commits, one message per holder and up
 * to {@link StateMessage.Release#MAX_KEYS} keys. A holder deletes, in one transaction, each copy of
 * a bucket it does not own that still has the generation it was fetched at.
 */
final class Releases {
  private static final byte[] RELEASE_PREFIX = {'r', 'l'};

  private final TaskSetup setup;
  private final TaskHost host;
  private final TaskMetrics metrics;
  private final LongSupplier lastBarrier; // the checkpoint this task last snapshotted

  Releases(TaskSetup setup, TaskHost host, TaskMetrics metrics, LongSupplier lastBarrier) {
    this.setup = setup;
    this.host = host;
    this.metrics = metrics;
    this.lastBarrier = lastBarrier;
  }

  /**
   * {@code key} was installed from {@code holder} at {@code generation} in {@code txn}: its copy
   * there is released with {@code now} (sent once the reply is installed) or, with checkpoints,
   * noted for the commit of a checkpoint that has it here.
   */
  void installed(
      WriteTxn txn, int holder, KeyRef key, long generation, List<StateMessage.Released> now) {
    if (host.checkpointing()) {
      // released once a checkpoint a rollback may restore has it here (§6.7, C4)
      txn.put(
          Table.METADATA,
          releaseKey(lastBarrier.getAsLong(), holder, key),
          ByteBuffer.allocate(8).putLong(generation).array());
    } else {
      now.add(new StateMessage.Released(key, generation));
    }
  }

  /**
   * Sends {@code holder} the releases of {@code released}, as few messages as fit, through its
   * state server: it passes them to its task after answering what this task asked of it before
   * (fetches, drains, the reads of state queries), so no read this task handed to the holder finds
   * a copy released after it was handed over (docs/decisions.md, "State queries during live
   * moves").
   */
  void send(TaskId holder, List<StateMessage.Released> released) {
    List<StateMessage.Release> messages = StateMessage.Release.of(setup.task(), released);
    StateServerAddress server = new StateServerAddress(holder);
    for (StateMessage.Release r : messages) {
      host.send(server, r);
    }
    metrics.releasesSent += released.size();
    metrics.releaseMessagesSent += messages.size();
  }

  /**
   * Takes out of {@code txn} the copies installed before the barrier of checkpoint {@code
   * oldestRestorable}; returns them by holder, to {@link #send} once {@code txn} is committed.
   */
  Map<Integer, List<StateMessage.Released>> takeBefore(WriteTxn txn, long oldestRestorable) {
    List<byte[]> done = new ArrayList<>();
    List<long[]> generations = new ArrayList<>();
    txn.scan(
        Table.METADATA,
        RELEASE_PREFIX,
        (k, v) -> {
          if (ByteBuffer.wrap(k, RELEASE_PREFIX.length, 8).getLong() >= oldestRestorable) {
            return false;
          }
          done.add(k);
          generations.add(new long[] {ByteBuffer.wrap(v).getLong()});
          return true;
        });
    Map<Integer, List<StateMessage.Released>> byHolder = new TreeMap<>();
    for (int i = 0; i < done.size(); i++) {
      txn.delete(Table.METADATA, done.get(i));
      ByteBuffer b = ByteBuffer.wrap(done.get(i));
      b.position(RELEASE_PREFIX.length + 8);
      int holder = b.getInt();
      int bucket = b.getShort() & 0xFFFF;
      byte[] key = new byte[b.remaining()];
      b.get(key);
      byHolder
          .computeIfAbsent(holder, h -> new ArrayList<>())
          .add(new StateMessage.Released(new KeyRef(bucket, key), generations.get(i)[0]));
    }
    return byHolder;
  }

  /**
   * At a holder: deletes in {@code txn} each released copy of a bucket this task does not {@code
   * own} whose bucket {@code generation} is still the one the copy was fetched at (K5).
   */
  void apply(
      WriteTxn txn, StateMessage.Release release, IntPredicate owns, IntToLongFunction generation) {
    for (StateMessage.Released r : release.keys()) {
      KeyRef ref = r.key();
      if (!owns.test(ref.bucket()) && generation.applyAsLong(ref.bucket()) == r.generation()) {
        txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(ref.bucket(), ref.key()));
        metrics.releasesApplied++;
      }
    }
  }

  /**
   * The key under which an owner keeps a copy to release: the last checkpoint before its install,
   * the holder, and the key, so that a checkpoint's commit releases a prefix of them.
   */
  private static byte[] releaseKey(long checkpoint, int holder, KeyRef ref) {
    return ByteBuffer.allocate(RELEASE_PREFIX.length + 14 + ref.key().length)
        .put(RELEASE_PREFIX)
        .putLong(checkpoint)
        .putInt(holder)
        .putShort((short) ref.bucket())
        .put(ref.key())
        .array();
  }
}
