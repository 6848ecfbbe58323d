package io.koala.store;

import java.util.EnumMap;
import java.util.Map;

/**
 * Size of a store at one instant.
 *
 * @param entries number of entries per table
 * @param bytes bytes the store uses for its data (pages in use for LMDB; keys plus values in
 *     memory)
 */
public record StoreStats(Map<Table, Long> entries, long bytes) {
  public StoreStats {
    EnumMap<Table, Long> copy = new EnumMap<>(Table.class);
    for (Table t : Table.values()) {
      copy.put(t, entries.getOrDefault(t, 0L));
    }
    entries = Map.copyOf(copy);
  }

  /** Number of entries in {@code table}. */
  public long entries(Table table) {
    return entries.get(table);
  }
}
