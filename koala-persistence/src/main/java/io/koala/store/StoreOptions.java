package io.koala.store;

/**
 * Sizing of an LMDB-backed store's memory map. LMDB maps its file into memory at a fixed size and
 * fails a write with {@code MDB_MAP_FULL} when the map is used up; {@link LmdbStateStore} then
 * grows the map by {@code growthFactor}, up to {@code maxMapSizeBytes}, and replays the transaction
 * (see {@link WriteTxn#commit()}). Growth is only possible while no read transaction is open, and
 * the file takes the map's size on disk.
 *
 * <p>{@code new StoreOptions(64L << 30, 1L << 40, 2.0)}, or {@code
 * StoreOptions.defaults().withInitialMapSizeBytes(64L << 30)}.
 *
 * @param initialMapSizeBytes map size when a new store is opened; at least {@link
 *     #MIN_MAP_SIZE_BYTES}. When a store is reopened on more data than that, LMDB enlarges the map
 *     to hold the data.
 * @param maxMapSizeBytes the map never grows beyond this; at least {@code initialMapSizeBytes}
 * @param growthFactor the map size is multiplied by this on each growth; finite and greater than 1
 * @param minFreeDiskBytes a commit is refused while the file system holding the store has less
 *     usable space than this (0: never), so that a filling disk fails a task with a clear error
 *     long before LMDB meets the end of it
 */
public record StoreOptions(
    long initialMapSizeBytes, long maxMapSizeBytes, double growthFactor, long minFreeDiskBytes) {

  /** Smallest map accepted: room for LMDB's meta pages and the tables' roots with some slack. */
  public static final long MIN_MAP_SIZE_BYTES = 64L << 10;

  /**
   * Default initial map size: 64 MiB. The store's file takes the map's size on disk (it is
   * allocated ahead of the map, see {@link LmdbStateStore}), so the map starts small and doubles.
   */
  public static final long DEFAULT_INITIAL_MAP_SIZE_BYTES = 64L << 20;

  /** Default maximum map size: 1 TiB. */
  public static final long DEFAULT_MAX_MAP_SIZE_BYTES = 1L << 40;

  /** Default growth factor: the map doubles. */
  public static final double DEFAULT_GROWTH_FACTOR = 2.0;

  /** Default usable space below which commits are refused: 256 MiB. */
  public static final long DEFAULT_MIN_FREE_DISK_BYTES = 256L << 20;

  public StoreOptions {
    if (initialMapSizeBytes < MIN_MAP_SIZE_BYTES) {
      throw new IllegalArgumentException(
          "initialMapSizeBytes must be at least "
              + MIN_MAP_SIZE_BYTES
              + " bytes, got "
              + initialMapSizeBytes);
    }
    if (maxMapSizeBytes < initialMapSizeBytes) {
      throw new IllegalArgumentException(
          "maxMapSizeBytes ("
              + maxMapSizeBytes
              + ") must be at least initialMapSizeBytes ("
              + initialMapSizeBytes
              + ")");
    }
    if (!(growthFactor > 1.0) || Double.isInfinite(growthFactor)) {
      throw new IllegalArgumentException(
          "growthFactor must be a finite number greater than 1, got " + growthFactor);
    }
    if (minFreeDiskBytes < 0) {
      throw new IllegalArgumentException(
          "minFreeDiskBytes must not be negative, got " + minFreeDiskBytes);
    }
  }

  /** Options with the default disk reserve ({@link #DEFAULT_MIN_FREE_DISK_BYTES}). */
  public StoreOptions(long initialMapSizeBytes, long maxMapSizeBytes, double growthFactor) {
    this(initialMapSizeBytes, maxMapSizeBytes, growthFactor, DEFAULT_MIN_FREE_DISK_BYTES);
  }

  /** 64 MiB initial map, 1 TiB maximum, doubling, 256 MiB of disk kept free. */
  public static StoreOptions defaults() {
    return new StoreOptions(
        DEFAULT_INITIAL_MAP_SIZE_BYTES, DEFAULT_MAX_MAP_SIZE_BYTES, DEFAULT_GROWTH_FACTOR);
  }

  /** These options with another initial map size. */
  public StoreOptions withInitialMapSizeBytes(long bytes) {
    return new StoreOptions(bytes, maxMapSizeBytes, growthFactor, minFreeDiskBytes);
  }

  /** These options with another maximum map size. */
  public StoreOptions withMaxMapSizeBytes(long bytes) {
    return new StoreOptions(initialMapSizeBytes, bytes, growthFactor, minFreeDiskBytes);
  }

  /** These options with another growth factor. */
  public StoreOptions withGrowthFactor(double factor) {
    return new StoreOptions(initialMapSizeBytes, maxMapSizeBytes, factor, minFreeDiskBytes);
  }

  /** These options with another disk reserve ({@code 0}: none). */
  public StoreOptions withMinFreeDiskBytes(long bytes) {
    return new StoreOptions(initialMapSizeBytes, maxMapSizeBytes, growthFactor, bytes);
  }
}
