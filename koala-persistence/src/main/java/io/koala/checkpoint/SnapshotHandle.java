package io.koala.checkpoint;

import io.koala.store.Table;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A complete snapshot file, as {@link SnapshotFile#write} left it or {@link SnapshotFile#verify}
 * found it: what a checkpoint's metadata records about one task's state.
 *
 * @param path the file, under its final name
 * @param bytes the file's length, trailer included
 * @param crc32c the CRC32C the trailer carries (of every byte before it)
 * @param entries the number of entries of each table; every {@link Table} has a count, 0 for an
 *     empty or absent table
 */
public record SnapshotHandle(Path path, long bytes, int crc32c, Map<Table, Long> entries) {
  public SnapshotHandle {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(entries, "entries");
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative, got " + bytes);
    }
    EnumMap<Table, Long> copy = new EnumMap<>(Table.class);
    for (Table table : Table.values()) {
      long n = entries.getOrDefault(table, 0L);
      if (n < 0) {
        throw new IllegalArgumentException("entry count of " + table + " is negative: " + n);
      }
      copy.put(table, n);
    }
    entries = Collections.unmodifiableMap(copy);
  }

  /** The number of entries in {@code table}. */
  public long entries(Table table) {
    return entries.get(table);
  }

  /** The number of entries in all tables. */
  public long totalEntries() {
    long total = 0;
    for (long n : entries.values()) {
      total += n;
    }
    return total;
  }

  @Override
  public String toString() {
    return "SnapshotHandle["
        + path
        + ", "
        + bytes
        + " bytes, crc32c "
        + String.format("%08x", crc32c)
        + ", entries "
        + entries
        + "]";
  }
}
