package io.koala.task;

import io.koala.keys.StateServing;
import io.koala.plan.TaskId;
import io.koala.protocol.StateMessage;
import io.koala.protocol.StateMessage.KeyRef;
import io.koala.protocol.StateMessage.KeyState;
import io.koala.protocol.StateServiceAddress;
import io.koala.protocol.TaskSetup;
import io.koala.store.KeyLayout;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The task's side of the remote state backend ({@code koala.store.backend = remote}, DESIGN §4.4):
 * which state service a bucket's state lives at, the reads it asks of them, and the writes it sends
 * back. A key's state is only borrowed for a batch: read from its service, used, written back and
 * deleted here. Writes to each service are numbered; a read waits for the writes of the earlier
 * owners of this task's buckets, so a bucket's new owner never reads state older than its last
 * write.
 */
final class RemoteStateClient {
  private final TaskSetup setup;
  private final TaskHost host;
  private final int count; // 0: the state is local
  private final long[] writesSent; // per service, the last write number sent
  // per service, the writes of earlier owners of this task's buckets that reads must wait for
  private final Map<Integer, Map<TaskId, Long>> readBarriers = new HashMap<>();
  private final Set<KeyRef> borrowed = new LinkedHashSet<>();

  RemoteStateClient(TaskSetup setup, TaskHost host) {
    this.setup = setup;
    this.host = host;
    this.count = host.remoteStateServices();
    this.writesSent = new long[count];
  }

  /** Whether the task's keyed state lives at state services. */
  boolean enabled() {
    return count > 0;
  }

  /** The holder address of the service {@code bucket}'s state lives at. */
  int holderOf(int bucket) {
    return StateServiceAddress.ofBucket(bucket, count).holder();
  }

  /** Reads what {@code fetch} asks of the service at {@code holder}, after the writes it awaits. */
  void fetch(StateMessage.Fetch fetch, int holder) {
    StateServiceAddress service = StateServiceAddress.ofHolder(holder);
    List<StateMessage.WriteBarrier> barriers = new ArrayList<>();
    readBarriers
        .getOrDefault(service.index(), Map.of())
        .forEach((writer, seq) -> barriers.add(new StateMessage.WriteBarrier(writer, seq)));
    host.send(service, new StateMessage.ServiceFetch(fetch, barriers));
  }

  /** A key's state was installed from its service: it goes back at the end of the batch. */
  void borrowed(KeyRef ref) {
    borrowed.add(ref);
  }

  /**
   * The whole state of every key borrowed in this transaction, as the batch left it (its writes
   * flushed to {@code txn}), by service; deleted here (the service is where it lives).
   */
  Map<Integer, List<KeyState>> takeWrites(WriteTxn txn) {
    Map<Integer, List<KeyState>> out = new TreeMap<>();
    for (KeyRef ref : borrowed) {
      KeyState ks = StateServing.stateOf(txn, ref, 0);
      txn.deletePrefix(Table.STATE, KeyLayout.keyPrefix(ref.bucket(), ref.key()));
      out.computeIfAbsent(
              StateServiceAddress.ofBucket(ref.bucket(), count).index(), s -> new ArrayList<>())
          .add(ks);
    }
    borrowed.clear();
    return out;
  }

  /**
   * Writes {@code keys} back to their state {@code service}, in messages of about {@link
   * StateServing#CHUNK_BYTES} each (a message stays well inside a frame), numbered in order.
   */
  void writeBack(int service, List<KeyState> keys) {
    List<KeyState> chunk = new ArrayList<>();
    long bytes = 0;
    for (KeyState ks : keys) {
      chunk.add(ks);
      bytes += ks.bytes();
      if (bytes >= StateServing.CHUNK_BYTES) {
        sendWrite(service, chunk);
        chunk = new ArrayList<>();
        bytes = 0;
      }
    }
    if (!chunk.isEmpty()) {
      sendWrite(service, chunk);
    }
  }

  private void sendWrite(int service, List<KeyState> keys) {
    host.send(
        new StateServiceAddress(service),
        new StateMessage.ServiceWrite(setup.task(), ++writesSent[service], keys));
  }

  /** The last write number sent to each service, which a bucket's next owner reads after. */
  List<Long> writesBefore() {
    return Arrays.stream(writesSent).boxed().toList();
  }

  /** A bucket came from {@code sender}: reads wait for the writes it had sent ({@code before}). */
  void readAfter(TaskId sender, List<Long> before) {
    for (int service = 0; service < before.size(); service++) {
      long seq = before.get(service);
      if (seq > 0) {
        readBarriers.computeIfAbsent(service, x -> new HashMap<>()).merge(sender, seq, Math::max);
      }
    }
  }
}
