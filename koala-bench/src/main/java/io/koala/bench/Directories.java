package io.koala.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The working directories the benchmarks and experiments make, removed when they are done. */
public final class Directories {
  private Directories() {}

  /**
   * Deletes {@code root} and everything under it; nothing when it does not exist.
   *
   * @throws UncheckedIOException naming {@code root} when a file cannot be deleted
   */
  public static void delete(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }
}
