package io.koala.testkit.sim;

import io.koala.keys.KeyLocations;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.routing.Buckets;
import io.koala.serialization.Codecs;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.store.ReadTxn;
import io.koala.task.TaskEngine;
import io.koala.task.state.KeyedStateBackend;

/**
 * The simulated job's keyed state as its owners see it: a key's value state read from wherever its
 * owner would find it (its own store, or the holder its lookup table names), and whether that is a
 * holder. What tests, the test driver and the simulated query client read between steps.
 */
final class SimulatedState {
  private final SimulatedWorker worker;
  private final ExecutionPlan plan;
  private final KryoSerde serde; // for reads from outside; each engine has its own

  SimulatedState(SimulatedWorker worker, ExecutionPlan plan, KryoSerde serde) {
    this.worker = worker;
    this.plan = plan;
    this.serde = serde;
  }

  /** See {@link Simulation#valueState}. */
  <V> V value(OperatorId vertex, Object key, String stateName, Class<V> type) {
    byte[][] found = valueBytes(vertex, key, stateName);
    if (found == null) {
      throw new IllegalArgumentException(
          "no live task of '" + vertex + "' owns key " + key + " (is '" + vertex + "' keyed?)");
    }
    return found[0] == null ? null : Codecs.forClass(type, serde).decode(found[0]);
  }

  /**
   * {@link #value}, or null also when no task owns the key's bucket now (a reconfiguration hands it
   * over) or the task holding its state has crashed.
   */
  <V> V valueIfOwned(OperatorId vertex, Object key, String stateName, Class<V> type) {
    byte[][] found = valueBytes(vertex, key, stateName);
    return found == null || found[0] == null ? null : Codecs.forClass(type, serde).decode(found[0]);
  }

  /**
   * Whether the state of {@code key} at keyed operator {@code vertex} is at a task other than the
   * one owning its bucket (a reconfiguration moved the bucket, not yet the key's state).
   */
  boolean atHolder(OperatorId vertex, Object key) {
    for (SimulatedTask owner : worker.tasks.values()) {
      if (owner.id.operator().equals(vertex)) {
        int at = owner.engine.locateState(key);
        if (at != TaskEngine.NOT_OWNER) {
          return at != KeyLocations.DELETED && at != owner.id.index();
        }
      }
    }
    return false;
  }

  /**
   * The bytes of value state {@code stateName} of {@code key} where its owner would find them (one
   * element, null when the key has none), or null when no task owns the key's bucket or the holder
   * it names has crashed.
   */
  private byte[][] valueBytes(OperatorId vertex, Object key, String stateName) {
    byte[] keyBytes = new KeyEncoder(serde).encode(key);
    for (SimulatedTask owner : worker.tasks.values()) {
      if (!owner.id.operator().equals(vertex)) {
        continue;
      }
      int at = owner.engine.locateState(key);
      if (at == TaskEngine.NOT_OWNER) {
        continue;
      }
      if (at == KeyLocations.DELETED) {
        return new byte[][] {null};
      }
      SimulatedTask holder = worker.tasks.get(new TaskId(vertex, at));
      if (holder == null && worker.crashed(new TaskId(vertex, at))) {
        return null; // lost with its holder, until the rollback restores it
      }
      if (holder == null) {
        throw new IllegalStateException(
            "the state of key " + key + " is at task " + at + " of " + vertex + ", released");
      }
      int bucket = Buckets.bucketOf(keyBytes, plan.logical().buckets());
      byte[] bytes;
      try (ReadTxn txn = holder.store.beginRead()) {
        bytes = KeyedStateBackend.valueBytes(txn, bucket, keyBytes, stateName);
      }
      return new byte[][] {bytes};
    }
    return null;
  }
}
