package io.koala.dataflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.JsonEncoder;
import io.koala.connector.SinkContext;
import io.koala.connector.SinkSpec;
import io.koala.connector.SinkWriter;
import io.koala.function.Collector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file protocol of {@link SinkSpec#jsonLines}: two-phase commit by renames, and restore; and
 * how records become lines.
 */
class JsonLinesSinkTest {
  @TempDir Path dir;

  private SinkWriter<Object> open(boolean checkpointing, long restored) throws Exception {
    return open(SinkSpec.jsonLines("out", dir), checkpointing, restored);
  }

  private static SinkWriter<Object> open(
      SinkSpec<Object> spec, boolean checkpointing, long restored) throws Exception {
    return spec.open(
        new SinkContext() {
          @Override
          public String sinkName() {
            return "out";
          }

          @Override
          public int taskIndex() {
            return 0;
          }

          @Override
          public int parallelism() {
            return 1;
          }

          @Override
          public Collector<Object> clientResults() {
            throw new UnsupportedOperationException();
          }

          @Override
          public boolean checkpointing() {
            return checkpointing;
          }

          @Override
          public long restoredCheckpoint() {
            return restored;
          }
        });
  }

  /** Every file in the directory and its lines. */
  private TreeMap<String, List<String>> files() throws IOException {
    TreeMap<String, List<String>> out = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        out.put(p.getFileName().toString(), Files.readAllLines(p));
      }
    }
    return out;
  }

  /** What a reader listing {@code *.jsonl} sees. */
  private TreeMap<String, List<String>> visible() throws IOException {
    TreeMap<String, List<String>> out = files();
    out.keySet().removeIf(n -> !n.endsWith(".jsonl"));
    return out;
  }

  private static void write(SinkWriter<Object> w, Object... values) throws Exception {
    for (Object v : values) {
      w.write(v, 0);
    }
    w.flush();
  }

  @Test
  void withoutCheckpointsWritesOneVisibleFileAsItGoes() throws Exception {
    SinkWriter<Object> w = open(false, 0);
    write(w, "a", 1);
    assertThat(visible()).containsExactly(Map.entry("out-0.jsonl", List.of("\"a\"", "1")));
    w.finish();
    w.close();
    assertThat(files()).containsOnlyKeys("out-0.jsonl");
  }

  @Test
  void writtenRecordsStayInvisibleUntilTheirCheckpointCommits() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    write(w, "a", "b");
    assertThat(files()).containsOnlyKeys("out-0.jsonl.inprogress");
    assertThat(visible()).isEmpty();

    w.prepareCommit(1);
    assertThat(files())
        .containsExactly(Map.entry("out-0-1.jsonl.pending", List.of("\"a\"", "\"b\"")));

    write(w, "c");
    w.prepareCommit(2);
    write(w, "d");
    assertThat(visible()).isEmpty();

    w.commit(1);
    assertThat(visible()).containsExactly(Map.entry("out-0-1.jsonl", List.of("\"a\"", "\"b\"")));
    assertThat(files())
        .containsOnlyKeys("out-0-1.jsonl", "out-0-2.jsonl.pending", "out-0.jsonl.inprogress");

    w.commit(2);
    assertThat(visible())
        .containsOnlyKeys("out-0-1.jsonl", "out-0-2.jsonl")
        .containsEntry("out-0-2.jsonl", List.of("\"c\""));
    w.close();
  }

  @Test
  void commitIsIdempotentAndCoversEveryEarlierCheckpoint() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    write(w, "a");
    w.prepareCommit(1);
    write(w, "b");
    w.prepareCommit(2);
    w.prepareCommit(3); // nothing written since 2: no part
    w.prepareCommit(3); // a repeat
    w.commit(3); // the commits of 1 and 2 were lost
    TreeMap<String, List<String>> once = files();
    assertThat(once).containsOnlyKeys("out-0-1.jsonl", "out-0-2.jsonl");

    w.commit(3);
    w.commit(2);
    w.commit(1);
    assertThat(files()).isEqualTo(once);
    w.close();
  }

  @Test
  void finishPublishesEverythingAsALastPart() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    write(w, "a");
    w.prepareCommit(1);
    write(w, "b");
    w.finish(); // checkpoint 1 never committed: it is published with the rest
    w.close();
    assertThat(files())
        .containsOnlyKeys("out-0-1.jsonl", "out-0-2.jsonl")
        .containsEntry("out-0-2.jsonl", List.of("\"b\""));
  }

  /**
   * A crash after checkpoint 2 was durably recorded but before the task heard: the restore
   * publishes the pending parts up to it, and discards the later pending part and the in-progress
   * file, whose records the replay writes again.
   */
  @Test
  void restoreCommitsPendingPartsUpToItsCheckpointAndDiscardsTheRest() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    write(w, "a");
    w.prepareCommit(1);
    w.commit(1);
    write(w, "b");
    w.prepareCommit(2);
    write(w, "c");
    w.prepareCommit(3);
    write(w, "d");
    w.close(); // the crash
    Files.writeString(dir.resolve("other-0-3.jsonl.pending"), "\"x\"\n"); // another sink's
    Files.writeString(dir.resolve("out-0-x.jsonl"), "\"y\"\n"); // not a part

    SinkWriter<Object> r = open(true, 2);
    assertThat(files())
        .containsOnlyKeys(
            "out-0-1.jsonl", "out-0-2.jsonl", "other-0-3.jsonl.pending", "out-0-x.jsonl")
        .containsEntry("out-0-1.jsonl", List.of("\"a\""))
        .containsEntry("out-0-2.jsonl", List.of("\"b\""));

    write(r, "c2");
    r.prepareCommit(4);
    r.commit(4);
    r.close();
    assertThat(visible()).containsEntry("out-0-4.jsonl", List.of("\"c2\""));
    assertThat(visible()).doesNotContainKey("out-0-3.jsonl");
  }

  /**
   * A task that finished published its last part without a checkpoint; a rollback to an earlier
   * checkpoint deletes it, since the replay writes its records again.
   */
  @Test
  void restoreDeletesAPartPublishedAfterItsCheckpoint() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    write(w, "a");
    w.prepareCommit(1);
    w.commit(1);
    write(w, "b");
    w.finish();
    w.close();
    assertThat(visible()).containsOnlyKeys("out-0-1.jsonl", "out-0-2.jsonl");

    open(true, 1).close();
    assertThat(files()).containsOnlyKeys("out-0-1.jsonl");

    open(true, 0).close(); // back to the start: nothing of this task is left
    assertThat(files()).isEmpty();
  }

  @Test
  void aRestoredWriterIgnoresRepeatedBarriersUpToItsCheckpoint() throws Exception {
    SinkWriter<Object> w = open(true, 5);
    write(w, "a");
    w.prepareCommit(5);
    assertThat(files()).containsOnlyKeys("out-0.jsonl.inprogress");
    w.prepareCommit(6);
    w.commit(6);
    w.close();
    assertThat(files()).containsOnlyKeys("out-0-6.jsonl");
  }

  /** A record of the default encoder's tests. */
  record Reading(String sensor, int[] samples, double mean) {}

  /** A class Jackson cannot write: nothing public to read. */
  static final class Opaque {
    @SuppressWarnings("unused")
    private final int secret = 1;
  }

  @Test
  void theDefaultEncoderWritesRecordsArraysAndMapsAsJackson() throws Exception {
    SinkWriter<Object> w = open(false, 0);
    write(w, new Reading("s1", new int[] {3, 4}, 3.5), Map.of("k", List.of(1L, 2L)), "x\ny");
    w.close();
    assertThat(files().get("out-0.jsonl"))
        .containsExactly(
            "{\"sensor\":\"s1\",\"samples\":[3,4],\"mean\":3.5}", "{\"k\":[1,2]}", "\"x\\ny\"");
  }

  @Test
  void aRecordTheEncoderCannotWriteFailsNamingTheSinkAndTheClassAndOpensNoFile() throws Exception {
    SinkWriter<Object> w = open(true, 0);
    assertThatThrownBy(() -> w.write(new Opaque(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sink 'out'")
        .hasMessageContaining(Opaque.class.getName())
        .hasMessageContaining("JsonEncoder");
    w.close();
    assertThat(files()).isEmpty();
  }

  @Test
  void aChosenEncoderWritesEachLineAndALineBreakInItsTextFails() throws Exception {
    JsonEncoder<Object> upper = v -> "\"" + v.toString().toUpperCase(Locale.ROOT) + "\"";
    SinkWriter<Object> w = open(SinkSpec.jsonLines("out", dir, upper), false, 0);
    write(w, "a", "b");
    assertThatThrownBy(() -> w.write("c\nd", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sink 'out'")
        .hasMessageContaining("line break")
        .hasMessageContaining("java.lang.String");
    w.close();
    assertThat(files().get("out-0.jsonl")).containsExactly("\"A\"", "\"B\"");
  }
}
