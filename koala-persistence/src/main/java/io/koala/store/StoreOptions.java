package io.koala.store;

/**
 * Sizing of an LMDB-backed store's memory map. LMDB maps its file into memory at a fixed size and
 * fails a write with {@code MDB_MAP_FULL} when the map is used up; {@link LmdbStateStore} then
 * grows the map by {@code growthFactor}, up to {@code maxMapSizeBytes}, and replays the transaction
 * (see {@link WriteTxn#commit()}). Growth is only possible while no read transaction is open, so
 * size the initial map generously: its file is sparse and costs no disk until pages are written.
 *
 * <p>{@code new StoreOptions(64L << 30, 1L << 40, 2.0)}, or {@code
 * StoreOptions.defaults().withInitialMapSizeBytes(64L << 30)}.
 *
 * @param initialMapSizeBytes map size when a new store is opened; at least {@link
 *     #MIN_MAP_SIZE_BYTES}. When a store is reopened on more data than that, LMDB enlarges the map
 *     to hold the data.
 * @param maxMapSizeBytes the map never grows beyond this; at least {@code initialMapSizeBytes}
 * @param growthFactor the map size is multiplied by this on each growth; finite and greater than 1
 */
public record StoreOptions(long initialMapSizeBytes, long maxMapSizeBytes, double growthFactor) {

  /** Smallest map accepted: room for LMDB's meta pages and the tables' roots with some slack. */
  public static final long MIN_MAP_SIZE_BYTES = 64L << 10;

  /** Default initial map size: 1 GiB. */
  public static final long DEFAULT_INITIAL_MAP_SIZE_BYTES = 1L << 30;

  /** Default maximum map size: 1 TiB. */
  public static final long DEFAULT_MAX_MAP_SIZE_BYTES = 1L << 40;

  /** Default growth factor: the map doubles. */
  public static final double DEFAULT_GROWTH_FACTOR = 2.0;

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
  }

  /** 1 GiB initial map, 1 TiB maximum, doubling. */
  public static StoreOptions defaults() {
    return new StoreOptions(
        DEFAULT_INITIAL_MAP_SIZE_BYTES, DEFAULT_MAX_MAP_SIZE_BYTES, DEFAULT_GROWTH_FACTOR);
  }

  /** These options with another initial map size. */
  public StoreOptions withInitialMapSizeBytes(long bytes) {
    return new StoreOptions(bytes, maxMapSizeBytes, growthFactor);
  }

  /** These options with another maximum map size. */
  public StoreOptions withMaxMapSizeBytes(long bytes) {
    return new StoreOptions(initialMapSizeBytes, bytes, growthFactor);
  }

  /** These options with another growth factor. */
  public StoreOptions withGrowthFactor(double factor) {
    return new StoreOptions(initialMapSizeBytes, maxMapSizeBytes, factor);
  }
}
