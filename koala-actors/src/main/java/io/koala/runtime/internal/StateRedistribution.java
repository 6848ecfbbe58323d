package io.koala.runtime.internal;

import io.koala.checkpoint.CheckpointException;
import io.koala.checkpoint.CheckpointStorage;
import io.koala.checkpoint.SnapshotFile;
import io.koala.coordinator.Checkpoints;
import io.koala.coordinator.CoordinatorState;
import io.koala.coordinator.Retirement;
import io.koala.deploy.LiveDeployment;
import io.koala.keys.KeyLocations;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.OperatorNode;
import io.koala.plan.TaskId;
import io.koala.protocol.DrainSettings;
import io.koala.store.InMemoryStateStore;
import io.koala.store.KeyLayout;
import io.koala.store.LmdbStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.StoreOptions;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import io.koala.task.TaskCheckpoint;
import io.koala.task.state.StateDeclaration;
import io.koala.task.state.StateDeclarations;
import io.koala.upgrade.PlanSignature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A checkpoint of one dataflow turned into a checkpoint of another (docs/upgrades.md): every task
 * of the new dataflow's first deployment gets a snapshot file. A keyed operator's state is split by
 * bucket among its new tasks — each key taken from where the old owner's lookup table resolves it
 * (its own store, or the holder the key had not been fetched from), so a checkpoint taken in the
 * middle of a move carries over too — with its timers, and the new tasks own their buckets fully
 * local. A source keeps its tasks' snapshots (its parallelism does not change); every other task
 * starts without state but with the pending transactions its sinks had at the checkpoint. State of
 * operators the new dataflow has not is left behind (the compatibility check allowed it).
 *
 * <p>Runs once, before the job deploys; reads every snapshot of the kept keyed operators into
 * scratch stores in the job's checkpoint directory, deleted afterwards.
 */
final class StateRedistribution {
  private final CheckpointMetadata stored;
  private final Map<TaskId, Path> files;
  private final ExecutionPlan plan;
  private final LiveDeployment initial;
  private final Path target;
  private final Path scratch;
  private final Map<TaskId, TaskCheckpoint> checkpoints = new HashMap<>();

  private StateRedistribution(
      CheckpointMetadata stored,
      Map<TaskId, Path> files,
      ExecutionPlan plan,
      LiveDeployment initial,
      Path target) {
    this.stored = stored;
    this.files = files;
    this.plan = plan;
    this.initial = initial;
    this.target = target;
    this.scratch = target.resolveSibling(target.getFileName() + ".work");
  }

  /**
   * Writes the snapshot files of {@code initial}'s tasks into {@code <job>/upgrade-<id>} and
   * returns the checkpoint that deploys them.
   *
   * @param files the stored checkpoint's snapshot files, where they are now
   * @throws CheckpointException when a snapshot cannot be read or a file cannot be written
   */
  static Checkpoints.Completed<Path, CoordinatorState> carryOver(
      CheckpointMetadata stored,
      Map<TaskId, Path> files,
      ExecutionPlan plan,
      LiveDeployment initial,
      DrainSettings drain,
      CheckpointStorage storage,
      String jobId) {
    Path target = storage.jobDirectory(jobId).resolve("upgrade-" + stored.id());
    StateRedistribution r = new StateRedistribution(stored, files, plan, initial, target);
    Map<TaskId, Path> snapshots = r.write();
    return new Checkpoints.Completed<>(
        stored.id(),
        stored.triggeredMillis(),
        snapshots,
        new LinkedHashSet<>(),
        new CoordinatorState(initial, new Retirement(drain), 0, 0));
  }

  private Map<TaskId, Path> write() {
    Worker.deleteRecursively(target); // a carry-over an earlier start of this job left unfinished
    Worker.deleteRecursively(scratch);
    Map<TaskId, Path> out = new LinkedHashMap<>();
    try {
      Files.createDirectories(target);
      for (ExecutionPlan.Vertex v : plan.vertices()) {
        List<TaskId> tasks = initial.liveTaskIds(v.id());
        List<TaskId> old = oldTasks(v.head().uid());
        if (v.isSource() && !old.isEmpty()) {
          for (TaskId t : tasks) {
            Path file = files.get(new TaskId(old.get(0).operator(), t.index()));
            if (file == null) {
              throw new CheckpointException(
                  "checkpoint " + stored.id() + " has no snapshot of source task " + t);
            }
            out.put(t, file); // read positions per task; the check kept the parallelism
          }
        } else if (v.isKeyed()) {
          out.putAll(splitKeyed(v, tasks, v.head().keyedState() ? old : List.of()));
        } else {
          for (TaskId t : tasks) {
            out.put(t, writeTask(t, new InMemoryStateStore(), null, Long.MIN_VALUE));
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new CheckpointException("cannot write into " + target + ": " + e, e);
    } finally {
      Worker.deleteRecursively(scratch);
    }
    return out;
  }

  /**
   * The stored checkpoint's tasks of the vertex its operator of uid {@code uid} headed, by index;
   * none when it had no such operator or the operator did not head its vertex.
   */
  private List<TaskId> oldTasks(String uid) {
    return stored
        .signature()
        .operator(uid)
        .filter(o -> o.vertex().equals(o.name()))
        .map(
            o ->
                files.keySet().stream()
                    .filter(t -> t.operator().name().equals(o.name()))
                    .sorted((a, b) -> Integer.compare(a.index(), b.index()))
                    .toList())
        .orElse(List.of());
  }

  /** What stored task {@code task}'s snapshot keeps besides its store. */
  private TaskCheckpoint checkpointOf(TaskId task) {
    return checkpoints.computeIfAbsent(
        task, t -> TaskCheckpoint.decode(SnapshotFile.verify(files.get(t)).metadata()));
  }

  /** The keyed state of {@code old} split by bucket among {@code tasks}. */
  private Map<TaskId, Path> splitKeyed(
      ExecutionPlan.Vertex v, List<TaskId> tasks, List<TaskId> old) {
    Map<Integer, StateStore> oldStores = new TreeMap<>();
    Map<Integer, StateStore> newStores = new TreeMap<>();
    try {
      long watermark = Long.MAX_VALUE;
      for (TaskId t : old) {
        StateStore s = LmdbStateStore.open(scratch.resolve("old-" + t.index()), scratchOptions());
        oldStores.put(t.index(), s);
        SnapshotFile.restore(files.get(t), s);
        if (owns(t)) {
          watermark = Math.min(watermark, checkpointOf(t).watermark());
        }
      }
      int[] routing = initial.routing(v.id()).toArray();
      Map<Integer, KeyLocations> tables = new HashMap<>();
      for (TaskId t : tasks) {
        newStores.put(
            t.index(), LmdbStateStore.open(scratch.resolve("new-" + t.index()), scratchOptions()));
        List<Integer> owned = new ArrayList<>();
        for (int b = 0; b < routing.length; b++) {
          if (routing[b] == t.index()) {
            owned.add(b);
          }
        }
        tables.put(
            t.index(),
            new KeyLocations(t.index(), owned.stream().mapToInt(Integer::intValue).toArray()));
      }
      Set<Integer> covered = new HashSet<>();
      for (TaskId o : old) {
        KeyLocations.Snapshot locations = checkpointOf(o).locations();
        if (locations == null) {
          continue;
        }
        StateStore from = oldStores.get(o.index());
        try (ReadTxn txn = from.beginRead()) {
          KeyLocations table = KeyLocations.restore(o.index(), locations, txn);
          for (KeyLocations.OwnedBucket ob : locations.buckets()) {
            int b = ob.bucket();
            covered.add(b);
            int to = routing[b];
            StateStore into = newStores.get(to);
            KeyLocations mine = tables.get(to);
            WriteTxn w = into.beginWrite();
            try {
              copyPrefix(txn, Table.TIMERS, KeyLayout.bucketPrefix(b), w);
              copyKeys(txn, b, txn, table, o.index(), w, mine);
              for (int h : table.holdersOf(b)) {
                StateStore holder = oldStores.get(h);
                if (holder == null) {
                  throw new CheckpointException(
                      "checkpoint "
                          + stored.id()
                          + " has no snapshot of "
                          + new TaskId(v.id(), h)
                          + ", which holds keys of bucket "
                          + b
                          + " for "
                          + o);
                }
                try (ReadTxn held = holder.beginRead()) {
                  copyKeys(held, b, txn, table, h, w, mine);
                }
              }
              w.commit();
            } catch (RuntimeException e) {
              w.close();
              throw e;
            }
          }
        }
      }
      if (!old.isEmpty()) {
        copyDeclarations(
            oldStores.values(), old.get(0).operator().name(), v.id().name(), newStores);
      }
      if (!old.isEmpty() && covered.size() != routing.length) {
        throw new CheckpointException(
            "checkpoint "
                + stored.id()
                + " does not cover every bucket of operator "
                + v.id()
                + ": "
                + covered.size()
                + " of "
                + routing.length
                + " have an owner");
      }
      Map<TaskId, Path> out = new LinkedHashMap<>();
      for (TaskId t : tasks) {
        out.put(t, writeTask(t, newStores.get(t.index()), tables.get(t.index()), watermark));
      }
      return out;
    } finally {
      oldStores.values().forEach(StateStore::close);
      newStores.values().forEach(StateStore::close);
    }
  }

  /**
   * Records in every new store the declarations of the states the operator kept in the old ones
   * (under its new name when it was renamed), so that each new task checks its declarations against
   * the schema the state was written with.
   */
  private static void copyDeclarations(
      Collection<StateStore> from, String was, String now, Map<Integer, StateStore> to) {
    Map<String, StateDeclaration> kept = new TreeMap<>();
    for (StateStore s : from) {
      try (ReadTxn txn = s.beginRead()) {
        for (StateDeclaration d : StateDeclarations.all(txn)) {
          if (d.operator().equals(was)) {
            kept.putIfAbsent(
                d.state(),
                new StateDeclaration(
                    now, d.state(), d.kind(), d.valueClass(), d.mapKeyClass(), d.fields()));
          }
        }
      }
    }
    for (StateStore s : to.values()) {
      WriteTxn w = s.beginWrite();
      kept.values()
          .forEach(
              d ->
                  w.put(
                      Table.METADATA,
                      StateDeclarations.key(d.operator(), d.state()),
                      StateDeclarations.encode(d)));
      w.commit();
    }
  }

  /** Whether stored task {@code t} owns buckets. */
  private boolean owns(TaskId t) {
    KeyLocations.Snapshot l = checkpointOf(t).locations();
    return l != null && !l.buckets().isEmpty();
  }

  /**
   * Copies the state of every key of {@code bucket} in {@code from} that {@code table} (read with
   * {@code tableTxn}) resolves to task {@code at}, recording each in {@code mine}.
   */
  private static void copyKeys(
      ReadTxn from,
      int bucket,
      ReadTxn tableTxn,
      KeyLocations table,
      int at,
      WriteTxn into,
      KeyLocations mine) {
    byte[][] last = {null};
    boolean[] take = {false};
    from.scan(
        Table.STATE,
        KeyLayout.bucketPrefix(bucket),
        (k, val) -> {
          byte[] key = KeyLayout.userKeyOf(k);
          if (last[0] == null || !Arrays.equals(key, last[0])) {
            last[0] = key;
            take[0] = table.locate(tableTxn, bucket, key) == at;
            if (take[0]) {
              mine.written(bucket, key);
            }
          }
          if (take[0]) {
            into.put(Table.STATE, k, val);
          }
          return true;
        });
  }

  private static void copyPrefix(ReadTxn from, Table table, byte[] prefix, WriteTxn into) {
    from.scan(
        table,
        prefix,
        (k, v) -> {
          into.put(table, k, v);
          return true;
        });
  }

  /**
   * Writes new task {@code t}'s snapshot: {@code store}'s entries, its lookup table {@code
   * locations} (null for a task without keyed state), and the pending transactions its sinks had.
   */
  private Path writeTask(TaskId t, StateStore store, KeyLocations locations, long watermark) {
    try {
      KeyLocations.Snapshot snapshot = null;
      if (locations != null) {
        WriteTxn w = store.beginWrite();
        locations.init(w);
        w.commit();
        if (locations.hasFullFilters()) {
          try (ReadTxn r = store.beginRead()) {
            locations.rebuildFilters(r);
          }
        }
        snapshot = locations.snapshot();
      }
      long wm = watermark == Long.MAX_VALUE ? Long.MIN_VALUE : watermark;
      TaskCheckpoint tc =
          new TaskCheckpoint(
              stored.id(), wm, wm, false, List.of(), Map.of(), snapshot, sinkStates(t));
      Path file = target.resolve(t + CheckpointStorage.SNAPSHOT_SUFFIX);
      SnapshotFile.write(store.beginRead(), t.toString(), stored.id(), tc.encode(), file);
      return file;
    } finally {
      if (locations == null) {
        store.close();
      }
    }
  }

  /**
   * The pending transactions at the checkpoint of the sinks chained into new task {@code t}: each
   * sink's (matched by uid), from the stored task of the same index in the vertex it ran in.
   */
  private Map<String, byte[]> sinkStates(TaskId t) {
    Map<String, byte[]> out = new TreeMap<>();
    PlanSignature signature = stored.signature();
    for (OperatorNode n : plan.vertex(t.operator()).chain()) {
      if (n.kind() != OperatorNode.Kind.SINK) {
        continue;
      }
      signature
          .operator(n.uid())
          .ifPresent(
              was -> {
                TaskId before = new TaskId(new OperatorId(was.vertex()), t.index());
                if (files.containsKey(before)) {
                  byte[] state = checkpointOf(before).sinkState(was.name());
                  if (state != null) {
                    out.put(n.id().name(), state);
                  }
                }
              });
    }
    return out;
  }

  private static StoreOptions scratchOptions() {
    return StoreOptions.defaults();
  }
}
