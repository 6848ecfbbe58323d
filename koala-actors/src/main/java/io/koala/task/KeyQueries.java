package io.koala.task;

import io.koala.plan.TaskId;
import io.koala.protocol.QueryMessage;
import io.koala.protocol.StateServerAddress;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.task.state.KeyedStateBackend;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers state queries (docs/decisions.md, "State queries during live moves") at the task that
 * processes the key's bucket, between batches: from its own store when the key's state is here,
 * else by asking the holder its lookup table names, whose state server answers the client. A task
 * that does not process the bucket says so (naming the task it handed the bucket to, if any): only
 * the bucket's current owner decides where a key's state is, which is what keeps each key's answers
 * from going backwards.
 */
public final class KeyQueries {
  private final TaskId self;
  private final TaskHost services;
  private final StatePlane keyed; // null: the chain keeps no keyed state
  private final EpochParticipant epoch;

  KeyQueries(TaskId self, TaskHost services, StatePlane keyed, EpochParticipant epoch) {
    this.self = self;
    this.services = services;
    this.keyed = keyed;
    this.epoch = epoch;
  }

  /** Answers {@code read}, or has the key's holder answer it; {@code serving}: the task may. */
  void onRead(QueryMessage.Read read, boolean serving) {
    String refusal = refusal(read);
    if (refusal != null) {
      services.send(read.replyTo(), new QueryMessage.Refused(read.id(), refusal));
      return;
    }
    if (!serving || !keyed.owns(read.bucket())) {
      services.send(
          read.replyTo(),
          new QueryMessage.NotHere(read.id(), self.index(), epoch.handedTo(read.bucket())));
      return;
    }
    int at = keyed.locate(read.bucket(), read.key());
    if (at == io.koala.keys.KeyLocations.DELETED) {
      services.send(read.replyTo(), found(read, self.index(), false, null, null));
    } else if (at == self.index()) {
      services.send(read.replyTo(), answer(read, keyed.store(), self.index(), false));
    } else {
      services.send(
          new StateServerAddress(new TaskId(self.operator(), at)),
          new QueryMessage.HolderRead(read, self.index(), at));
    }
  }

  /** Why {@code read} can never be answered here, or {@code null}. */
  private String refusal(QueryMessage.Read read) {
    String operator = self.operator().name();
    if (keyed == null) {
      return "operator '" + operator + "' keeps no keyed state";
    }
    if (keyed.remoteState()) {
      return "operator '"
          + operator
          + "' keeps its state at remote state services (koala.store.backend = remote): state"
          + " queries read the tasks' own stores";
    }
    String kind = keyed.state().declaredKind(read.state());
    if (kind == null) {
      List<String> declared = keyed.state().declaredStates();
      return "operator '"
          + operator
          + "' has no state named '"
          + read.state()
          + "'"
          + (declared.isEmpty() ? "" : " (its states: " + String.join(", ", declared) + ")");
    }
    String asked = read.kind().name().toLowerCase(java.util.Locale.ROOT);
    if (!kind.equals(asked)) {
      return "state '"
          + read.state()
          + "' of operator '"
          + operator
          + "' is "
          + (kind.equals(KeyedStateBackend.NAMESPACED)
              ? "kept per window, which queries do not read"
              : "a " + kind + " state, not a " + asked + " state: query it as a " + kind);
    }
    return null;
  }

  /**
   * The answer to {@code read} from {@code store}, a store holding the key's state: the owner's, or
   * the holder's its lookup table names ({@code byHolder}). Thread-safe for the store: a holder's
   * state server calls it on its own thread.
   */
  public static QueryMessage.Found answer(
      QueryMessage.Read read, StateStore store, int servedBy, boolean byHolder) {
    List<byte[]> namespaces = new ArrayList<>(1);
    List<byte[]> values = new ArrayList<>(1);
    try (ReadTxn txn = store.beginRead()) {
      KeyedStateBackend.entries(
          txn,
          read.bucket(),
          read.key(),
          read.state(),
          (ns, v) -> {
            namespaces.add(ns);
            values.add(v);
          });
    }
    return found(read, servedBy, byHolder, namespaces, values);
  }

  private static QueryMessage.Found found(
      QueryMessage.Read read,
      int servedBy,
      boolean byHolder,
      List<byte[]> namespaces,
      List<byte[]> values) {
    return new QueryMessage.Found(
        read.id(),
        servedBy,
        byHolder,
        namespaces == null ? List.of() : namespaces,
        values == null ? List.of() : values);
  }
}
