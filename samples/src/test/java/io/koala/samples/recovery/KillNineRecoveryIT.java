package io.koala.samples.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.connector.Json;
import io.koala.function.KeyValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7's must-show: a child JVM running a checkpointed job is killed with SIGKILL mid-run,
 * started again on the same data and output directories, and the visible output of the exactly-once
 * {@code jsonLines} sink is exactly that of a run without a crash — every running count of every
 * key once, none missing.
 *
 * <p>The job ({@link KillNineMain}): generated records at {@value #RATE}/s ({@value #RECORDS},
 * about 12 s), a keyed running count over {@value #KEYS} keys (LMDB state), sink {@code jsonLines}.
 * Two scenarios: killed after checkpoints committed output (the second run resumes from the latest
 * journaled one), and killed before the first checkpoint (the second run starts over, on a data dir
 * holding the killed run's task stores). The reference is computed in plain Java from the same key
 * function and {@link Json}. Each scenario prints its seed and timings; the children's logs are in
 * {@code target/kill-nine/<scenario>/}.
 */
class KillNineRecoveryIT {
  static final long RECORDS = 60_000;
  static final long RECORDS_STARTING_OVER = 30_000; // the second run reads them all: keep it short
  static final double RATE = 5_000;
  static final int KEYS = 257;
  static final long CHECKPOINT_MS = 200;
  static final long NO_CHECKPOINT_MS = 3_600_000; // the first checkpoint would be due in an hour
  static final Duration KILL_DEADLINE = Duration.ofSeconds(30);
  static final Duration RUN_DEADLINE = Duration.ofMinutes(2);

  private final List<Process> children = new ArrayList<>();

  @AfterEach
  void killLeftoverChildren() throws InterruptedException {
    for (Process p : children) {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Killed once committed parts hold at least a fifth of the output (checkpoints every 200 ms) and
   * an in-progress part holds output no checkpoint covers; the second run resumes from the latest
   * journaled checkpoint.
   */
  @Test
  void killedMidRunAndRestartedOnTheSameDataDirGivesExactlyOnceOutput(@TempDir Path tmp)
      throws Exception {
    Scenario s = new Scenario(tmp, "after-checkpoint", RECORDS);
    s.startFirst(CHECKPOINT_MS);
    s.killWhen(
        "a committed checkpoint with output, and uncommitted output",
        () ->
            s.committedCheckpoint().isPresent()
                && visibleLines(s.out) >= RECORDS / 5
                && sizes(s.out, ".jsonl.inprogress") > 0);
    assertThat(s.visibleAtKill).as("the job had not finished").isLessThan(RECORDS);
    long records = s.restartAndFinish(CHECKPOINT_MS);
    assertThat(records)
        .as("the second run resumed from a checkpoint instead of starting over")
        .isLessThan(RECORDS);
    s.assertExactlyOnce();
  }

  /**
   * Killed before any checkpoint (the first is due in an hour) with keyed state and output written;
   * the second run has no checkpoint to resume from and starts over on the same data dir.
   */
  @Test
  void killedBeforeTheFirstCheckpointAndRestartedStartsOverWithExactlyOnceOutput(@TempDir Path tmp)
      throws Exception {
    Scenario s = new Scenario(tmp, "before-checkpoint", RECORDS_STARTING_OVER);
    s.startFirst(NO_CHECKPOINT_MS);
    s.killWhen(
        "keyed state and output written without a checkpoint",
        () -> uncommittedLines(s.out) >= s.records / 20);
    assertThat(s.committedCheckpoint()).as("no checkpoint was taken").isEmpty();
    assertThat(s.visibleAtKill).as("nothing was published").isZero();
    long records = s.restartAndFinish(CHECKPOINT_MS);
    assertThat(records).as("the second run started over").isEqualTo(s.records);
    s.assertExactlyOnce();
  }

  /** One scenario: its directories, children, seed and timings. */
  private final class Scenario {
    final long seed = ThreadLocalRandom.current().nextLong();
    final String label;
    final long records;
    final Path data;
    final Path out;
    final Path logs;
    final Path checkpoints;
    final long t0 = System.nanoTime();
    Process first;
    long killedAt;
    long visibleAtKill;

    Scenario(Path tmp, String label, long records) throws IOException {
      this.label = label;
      this.records = records;
      this.data = tmp.resolve("data");
      this.out = tmp.resolve("out");
      this.logs = Files.createDirectories(Path.of("target", "kill-nine", label));
      this.checkpoints = data.resolve("checkpoints").resolve(KillNineMain.JOB_ID);
      System.out.printf(
          "kill-nine %s: seed=%d records=%d rate=%.0f/s keys=%d%n",
          label, seed, records, RATE, KEYS);
    }

    void startFirst(long intervalMs) throws IOException {
      first = start(intervalMs, logs.resolve("run-1.log"));
    }

    /** SIGKILLs the first run once {@code condition} holds (polled, with a deadline). */
    void killWhen(String what, BooleanSupplier condition) throws Exception {
      String log = " (log " + logs.resolve("run-1.log") + ")";
      long end = System.nanoTime() + KILL_DEADLINE.toNanos();
      while (!condition.getAsBoolean()) {
        assertThat(first.isAlive())
            .as("the first run is alive (exit code %s) before: %s%s", exit(first), what, log)
            .isTrue();
        assertThat(System.nanoTime() < end)
            .as("within %s: %s%s", KILL_DEADLINE, what, log)
            .isTrue();
        TimeUnit.MILLISECONDS.sleep(20); // the polling interval, not a synchronization
      }
      assertThat(first.isAlive()).as("the first run is still running when killed").isTrue();
      first.destroyForcibly(); // SIGKILL on Linux
      assertThat(first.waitFor(10, TimeUnit.SECONDS)).as("the killed child is gone").isTrue();
      killedAt = millisSince(t0);
      assertThat(first.isAlive()).isFalse();
      assertThat(first.exitValue()).as("exit code of a SIGKILLed JVM").isEqualTo(137);
      visibleAtKill = visibleLines(out);
      // informational: whether the kill left uncommitted output behind depends on its timing
      System.out.printf(
          "kill-nine %s: killed at %d ms, latest checkpoint %s, visible lines %d, uncommitted"
              + " lines on disk %d%n",
          label,
          killedAt,
          committedCheckpoint().orElse("none"),
          visibleAtKill,
          uncommittedLines(out));
    }

    /** Runs the job again on the same directories; returns the records it took in. */
    long restartAndFinish(long intervalMs) throws Exception {
      Path log = logs.resolve("run-2.log");
      Process second = start(intervalMs, log);
      assertThat(second.waitFor(RUN_DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .as("the second run finished within %s (log %s)", RUN_DEADLINE, log)
          .isTrue();
      long finishedAt = millisSince(t0);
      String text = Files.readString(log);
      assertThat(second.exitValue()).as("exit code of the second run; its log:%n%s", text).isZero();
      Matcher m = Pattern.compile("finished records-in=(\\d+)").matcher(text);
      assertThat(m.find()).as("the second run's report; its log:%n%s", text).isTrue();
      long records = Long.parseLong(m.group(1));
      System.out.printf(
          "kill-nine %s: second run finished at %d ms (%d ms after the kill), took in %d"
              + " records%n",
          label, finishedAt, finishedAt - killedAt, records);
      return records;
    }

    /** The visible lines are the reference's, as multisets; nothing else is left. */
    void assertExactlyOnce() throws IOException {
      try (Stream<Path> files = Files.list(out)) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .as("no part is left in progress or pending")
            .allMatch(n -> n.endsWith(".jsonl"));
      }
      Map<String, Long> actual = new HashMap<>();
      for (Path part : visibleParts(out)) {
        for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
          actual.merge(line, 1L, Long::sum);
        }
      }
      Map<String, Long> expected = reference(seed, records);
      List<String> duplicated = new ArrayList<>();
      List<String> unexpected = new ArrayList<>();
      actual.forEach(
          (line, n) -> {
            if (!expected.containsKey(line)) {
              unexpected.add(line);
            } else if (n > 1) {
              duplicated.add(line + " x" + n);
            }
          });
      List<String> missing =
          expected.keySet().stream().filter(l -> !actual.containsKey(l)).sorted().toList();
      assertThat(duplicated).as("lines seen more than once (seed %d)", seed).isEmpty();
      assertThat(missing).as("lines missing (seed %d)", seed).isEmpty();
      assertThat(unexpected).as("lines not in the reference (seed %d)", seed).isEmpty();
      assertThat(actual).isEqualTo(expected);
      assertThat(checkpoints).as("the finished job's checkpoints are deleted").doesNotExist();
    }

    Optional<String> committedCheckpoint() {
      if (!Files.isDirectory(checkpoints)) {
        return Optional.empty();
      }
      try (Stream<Path> dirs = Files.list(checkpoints)) {
        return dirs.map(d -> d.getFileName().toString())
            .filter(n -> n.matches("chk-\\d+"))
            .filter(n -> Files.exists(checkpoints.resolve(n).resolve("_metadata")))
            .max((a, b) -> Long.compare(id(a), id(b)));
      } catch (IOException | UncheckedIOException e) {
        return Optional.empty(); // a checkpoint deleted while listing: look again
      }
    }

    private Process start(long intervalMs, Path log) throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process p =
          new ProcessBuilder(
                  List.of(
                      java,
                      "-Xmx512m",
                      "-XX:+UseParallelGC",
                      "-XX:TieredStopAtLevel=1", // C1 only: halves the start-up on 2 cores
                      "-cp",
                      System.getProperty("java.class.path"),
                      KillNineMain.class.getName(),
                      data.toString(),
                      out.toString(),
                      Long.toString(records),
                      Double.toString(RATE),
                      Integer.toString(KEYS),
                      Long.toString(seed),
                      Long.toString(intervalMs)))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      children.add(p);
      return p;
    }
  }

  /**
   * The running counts of the job: for each key with n records, {key, 1} .. {key, n}, once each.
   */
  static Map<String, Long> reference(long seed, long records) {
    Map<Long, Long> perKey = new HashMap<>();
    for (long i = 0; i < records; i++) {
      perKey.merge(KillNineMain.key(i, seed, KEYS), 1L, Long::sum);
    }
    Map<String, Long> lines = new HashMap<>();
    perKey.forEach(
        (key, n) -> {
          for (long c = 1; c <= n; c++) {
            lines.put(Json.encode(new KeyValue<>(key, c)), 1L);
          }
        });
    assertThat(lines).hasSize((int) records);
    return lines;
  }

  private static Object exit(Process p) {
    return p.isAlive() ? "none" : p.exitValue();
  }

  private static long id(String chk) {
    return Long.parseLong(chk.substring("chk-".length()));
  }

  private static List<Path> visibleParts(Path out) throws IOException {
    if (!Files.isDirectory(out)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(out)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".jsonl")).sorted().toList();
    }
  }

  /**
   * Lines in visible parts; a visible part never changes, so counting while the job runs is safe.
   */
  private static long visibleLines(Path out) {
    try {
      long n = 0;
      for (Path part : visibleParts(out)) {
        n += lines(part);
      }
      return n;
    } catch (IOException | UncheckedIOException e) {
      return 0; // a part deleted while listing: look again
    }
  }

  /** Bytes in files whose name ends with {@code suffix}. */
  private static long sizes(Path out, String suffix) {
    if (!Files.isDirectory(out)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(out)) {
      long n = 0;
      for (Path f : files.toList()) {
        if (f.getFileName().toString().endsWith(suffix)) {
          n += Files.size(f);
        }
      }
      return n;
    } catch (IOException | UncheckedIOException e) {
      return 0; // renamed while listing: look again
    }
  }

  /** Complete lines in in-progress and pending parts. */
  private static long uncommittedLines(Path out) {
    if (!Files.isDirectory(out)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(out)) {
      long n = 0;
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".jsonl.inprogress") || name.endsWith(".jsonl.pending")) {
          n += lines(f);
        }
      }
      return n;
    } catch (IOException | UncheckedIOException e) {
      return 0; // renamed while listing: look again
    }
  }

  private static long lines(Path f) throws IOException {
    byte[] bytes = Files.readAllBytes(f);
    long n = 0;
    for (byte b : bytes) {
      if (b == '\n') {
        n++;
      }
    }
    return n;
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
