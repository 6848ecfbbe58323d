package io.koala.store;

import java.nio.file.Path;
import org.agrona.DirectBuffer;
import org.lmdbjava.Env;
import org.lmdbjava.LmdbException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The size of a store's memory map, and of the file under it: how far the map grows, by {@link
 * StoreOptions#growthFactor()} up to {@link StoreOptions#maxMapSizeBytes()}, and, when the map is
 * writable, the file's blocks allocated up to the map's size before the map reaches into them
 * ({@link FileSpace}), so that a full disk fails a growth instead of killing the JVM. Its caller
 * holds the store's lock, and grows the map only while no transaction is open.
 */
final class MapSize {
  private static final Logger LOG = LoggerFactory.getLogger(MapSize.class);
  private static final long PAGE_BYTES = 4096;

  private final Env<DirectBuffer> env;
  private final StoreOptions options;
  private final Path dataFile;
  private final boolean writeMap;
  private final String where;
  private long bytes;

  /**
   * The map of {@code env}, just opened in {@code directory}; a writable map has its file allocated
   * to the map's size now.
   *
   * @throws StoreException when the disk has no room for it
   */
  MapSize(
      Env<DirectBuffer> env, StoreOptions options, Path directory, boolean writeMap, String where) {
    this.env = env;
    this.options = options;
    this.dataFile = directory.resolve("data.mdb");
    this.writeMap = writeMap;
    this.where = where;
    this.bytes = env.info().mapSize;
    if (writeMap) { // before anything writes through the map
      FileSpace.allocate(dataFile, bytes, where);
    }
  }

  /** The map's size in bytes. */
  long bytes() {
    return bytes;
  }

  /** Whether more than half of the map is used, and it may still grow. */
  boolean moreThanHalfUsedAndGrowable() {
    if (bytes >= options.maxMapSizeBytes()) {
      return false;
    }
    try {
      return (env.info().lastPageNumber + 1) * PAGE_BYTES > bytes / 2;
    } catch (LmdbException e) {
      throw new StoreException(
          "LMDB failed to read the map's use (" + where + "): " + e.getMessage(), e);
    }
  }

  /**
   * Grows the map by the growth factor, allocating its file first when the map is writable. No
   * transaction of the environment may be open.
   *
   * @throws StoreException at the maximum size, when the disk has no room, or when LMDB fails
   */
  void grow() {
    long max = options.maxMapSizeBytes();
    if (bytes >= max) {
      throw new StoreException(
          "map full at its maximum size of "
              + max
              + " bytes (map size "
              + bytes
              + " bytes, "
              + where
              + "): raise StoreOptions.maxMapSizeBytes");
    }
    double grown = Math.ceil(bytes * options.growthFactor());
    long next = grown >= max ? max : Math.min(max, roundUpToPage((long) grown));
    if (writeMap) {
      FileSpace.allocate(dataFile, next, where); // before the map reaches into it
    }
    try {
      env.setMapSize(next);
    } catch (LmdbException e) {
      throw new StoreException(
          "LMDB failed to grow the map from "
              + bytes
              + " to "
              + next
              + " bytes ("
              + where
              + "): "
              + e.getMessage(),
          e);
    }
    LOG.info("Grew the LMDB map of {} from {} to {} bytes", where, bytes, next);
    bytes = next;
  }

  private static long roundUpToPage(long bytes) {
    return (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
  }
}
