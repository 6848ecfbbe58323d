package io.koala.store;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The usable space a store keeps free on its file system ({@link StoreOptions#minFreeDiskBytes()}):
 * below it a commit is refused, naming the space left, so that a filling disk fails a task long
 * before LMDB or the checkpoint files meet its end. The space is looked up at most once a second
 * while it is above the reserve, at every check below it. Used by the store's writer thread only.
 */
final class DiskReserve {
  private static final long CHECK_NANOS = 1_000_000_000L;

  private final long reserve;
  private final FileStore fileStore;
  private final String where;
  private long checkedNanos;
  private long usable = Long.MAX_VALUE;

  private DiskReserve(long reserve, FileStore fileStore, String where) {
    this.reserve = reserve;
    this.fileStore = fileStore;
    this.where = where;
    this.checkedNanos = System.nanoTime() - CHECK_NANOS; // the first check looks
  }

  /**
   * The reserve of {@code reserve} bytes on the file system of {@code directory} ({@code where}
   * names the store in messages).
   *
   * @throws StoreException when the file system cannot be found
   */
  static DiskReserve of(Path directory, long reserve, String where) {
    try {
      return new DiskReserve(reserve, Files.getFileStore(directory), where);
    } catch (IOException e) {
      throw new StoreException("cannot find the file system of " + where, e);
    }
  }

  /**
   * @throws StoreException when the file system has less usable space than the reserve, or its
   *     space cannot be read
   */
  void check() {
    if (reserve == 0) {
      return;
    }
    long now = System.nanoTime();
    if (usable < reserve || now - checkedNanos >= CHECK_NANOS) {
      try {
        usable = fileStore.getUsableSpace();
      } catch (IOException e) {
        throw new StoreException(
            "cannot read the usable space of " + fileStore + " (" + where + ")", e);
      }
      checkedNanos = now;
    }
    if (usable < reserve) {
      throw new StoreException(
          String.format(
              Locale.ROOT,
              "disk nearly full: %,d bytes usable on %s, below the reserve of %,d bytes"
                  + " (koala.store.min-free-disk; %s): the commit is refused until space is freed",
              usable,
              fileStore,
              reserve,
              where));
    }
  }
}
