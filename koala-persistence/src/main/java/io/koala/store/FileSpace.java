package io.koala.store;

import java.nio.file.Path;
import jnr.ffi.LibraryLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocates a file's blocks before a memory map writes into them ({@code posix_fallocate} through
 * libc): a write through a map into a hole of a sparse file on a full disk kills the process with
 * {@code SIGBUS}, where an allocation that finds no space is an error to report. Available where
 * libc has {@code posix_fallocate} (Linux); {@link #available()} says whether it is here.
 */
final class FileSpace {
  private static final Logger LOG = LoggerFactory.getLogger(FileSpace.class);
  private static final int O_RDWR = 2;
  private static final int ENOSPC = 28;

  /** The libc functions used. */
  public interface LibC {
    int open(String path, int flags);

    int posix_fallocate(int fd, long offset, long length);

    int close(int fd);
  }

  private static final LibC LIBC = load();

  private FileSpace() {}

  private static LibC load() {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
      return null;
    }
    try {
      return LibraryLoader.create(LibC.class).failImmediately().load("c");
    } catch (LinkageError | RuntimeException e) {
      LOG.warn(
          "posix_fallocate is not available ({}): stores write their pages at commit",
          e.toString());
      return null;
    }
  }

  /** Whether files can be allocated here. */
  static boolean available() {
    return LIBC != null;
  }

  /**
   * Allocates the blocks of {@code file} up to {@code length} bytes, extending it if shorter.
   *
   * @throws StoreException naming the file and the bytes when the disk has no room for them, or
   *     when the file cannot be allocated
   */
  static void allocate(Path file, long length, String where) {
    int fd = LIBC.open(file.toString(), O_RDWR);
    if (fd < 0) {
      throw new StoreException("cannot open " + file + " to allocate it (" + where + ")");
    }
    int rc;
    try {
      rc = LIBC.posix_fallocate(fd, 0, length);
    } finally {
      LIBC.close(fd);
    }
    if (rc == ENOSPC) {
      throw new StoreException(
          String.format(
              java.util.Locale.ROOT,
              "disk full: no space left on device to allocate %,d bytes for %s (%s)",
              length,
              file,
              where));
    }
    if (rc != 0) {
      throw new StoreException(
          "cannot allocate " + length + " bytes for " + file + " (" + where + "): error " + rc);
    }
  }
}
