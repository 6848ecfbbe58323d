package io.koala.testkit.sim;

import io.koala.store.InMemoryStateStore;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A task's snapshot in the simulator's memory (its "file"): every entry of its store at the
 * barrier, and its other state.
 */
record TaskImage(Map<Table, List<byte[][]>> entries, byte[] metadata) {
  static TaskImage of(ReadTxn txn, byte[] metadata) {
    Map<Table, List<byte[][]>> entries = new EnumMap<>(Table.class);
    if (txn != null) {
      for (Table t : Table.values()) {
        List<byte[][]> list = new ArrayList<>();
        txn.scan(t, new byte[0], (k, v) -> list.add(new byte[][] {k, v}));
        entries.put(t, list);
      }
    }
    return new TaskImage(entries, metadata);
  }

  /** A store holding the image's entries. */
  StateStore restore() {
    StateStore store = new InMemoryStateStore();
    WriteTxn txn = store.beginWrite();
    entries.forEach((t, list) -> list.forEach(e -> txn.put(t, e[0].clone(), e[1].clone())));
    txn.commit();
    return store;
  }

  /** The image's size, as a snapshot file's would be counted. */
  long bytes() {
    long n = metadata.length;
    for (List<byte[][]> list : entries.values()) {
      for (byte[][] e : list) {
        n += e[0].length + e[1].length;
      }
    }
    return n;
  }
}
