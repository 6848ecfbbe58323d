package io.koala.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Faults the soak injects into the user function of its job, through files in a directory every
 * process of the experiment sees (they run on one machine): a {@value #CRASH} file makes the first
 * task that finds it throw (it deletes the file, so one task crashes), and a {@value #STALL} file
 * blocks every task that finds it until the file is gone, as a call that hangs would. A task looks
 * at most every {@value #LOOK_EVERY_MILLIS} ms, so that the hook costs a record nothing.
 */
final class InjectedFaults {
  static final String CRASH = "crash";
  static final String STALL = "stall";
  static final long LOOK_EVERY_MILLIS = 100;

  private final Path dir;
  private long lookedAtNanos = System.nanoTime();

  InjectedFaults(Path dir) {
    this.dir = dir;
  }

  /**
   * Called by a task for each record: throws when this task takes the crash file, blocks while the
   * stall file is there.
   *
   * @throws IllegalStateException the injected crash
   */
  void check() {
    long now = System.nanoTime();
    if (now - lookedAtNanos < LOOK_EVERY_MILLIS * 1_000_000) {
      return;
    }
    lookedAtNanos = now;
    try {
      if (Files.deleteIfExists(dir.resolve(CRASH))) {
        throw new IllegalStateException("soak: an injected task crash");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    while (Files.exists(dir.resolve(STALL))) {
      LockSupport.parkNanos(LOOK_EVERY_MILLIS * 1_000_000);
    }
  }

  /** Arms a crash: the next task to look takes it. */
  void armCrash() {
    write(CRASH);
  }

  /** Whether an armed crash has not been taken yet. */
  boolean crashArmed() {
    return Files.exists(dir.resolve(CRASH));
  }

  /** Blocks the tasks from their next look until {@link #release}. */
  void stall() {
    write(STALL);
  }

  /** Lets stalled tasks go on. */
  void release() {
    try {
      Files.deleteIfExists(dir.resolve(STALL));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void write(String name) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(name), name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
