package io.koala.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CheckpointStorageTest {

  @TempDir Path dir;

  @Test
  void layoutIsRootJobCheckpointTask() {
    CheckpointStorage storage = new CheckpointStorage(dir);
    assertThat(storage.snapshotPath("wordcount", 42, "counts#3"))
        .isEqualTo(dir.resolve("wordcount").resolve("chk-42").resolve("counts#3.snap"));
    assertThat(storage.checkpointDirectory("wordcount", 0))
        .isEqualTo(dir.resolve("wordcount").resolve("chk-0"));
    assertThat(storage.jobDirectory("wordcount")).isEqualTo(dir.resolve("wordcount"));
  }

  @Test
  void listsCheckpointIdsInNumericOrderAndIgnoresOtherNames() throws IOException {
    CheckpointStorage storage = new CheckpointStorage(dir);
    assertThat(storage.checkpointIds("job")).isEmpty();
    for (long id : new long[] {10, 2, 1, Long.MAX_VALUE}) {
      Files.createDirectories(storage.checkpointDirectory("job", id));
    }
    Path job = storage.jobDirectory("job");
    Files.createDirectories(job.resolve("chk-x"));
    Files.createDirectories(job.resolve("chk-01"));
    Files.createDirectories(job.resolve("chk-99999999999999999999"));
    Files.createDirectories(job.resolve("savepoints"));
    Files.write(job.resolve("chk-5"), new byte[0]); // a file, not a checkpoint directory
    assertThat(storage.checkpointIds("job")).containsExactly(1L, 2L, 10L, Long.MAX_VALUE);
    assertThat(storage.checkpointIds("other")).isEmpty();
  }

  @Test
  void tasksAreTheCompleteSnapshotFiles() throws IOException {
    CheckpointStorage storage = new CheckpointStorage(dir);
    assertThat(storage.tasks("job", 1)).isEmpty();
    Files.createDirectories(storage.checkpointDirectory("job", 1));
    Files.write(storage.snapshotPath("job", 1, "b#1"), new byte[0]);
    Files.write(storage.snapshotPath("job", 1, "a#0"), new byte[0]);
    Files.write(SnapshotFile.tmpPath(storage.snapshotPath("job", 1, "c#2")), new byte[0]);
    assertThat(storage.tasks("job", 1)).containsExactly("a#0", "b#1");
  }

  @Test
  void deletesASnapshotWithItsTemporaryFileAndACheckpointDirectory() throws IOException {
    CheckpointStorage storage = new CheckpointStorage(dir);
    Path a = storage.snapshotPath("job", 7, "a#0");
    Path b = storage.snapshotPath("job", 7, "b#0");
    Files.createDirectories(a.getParent());
    Files.write(a, new byte[] {1});
    Files.write(SnapshotFile.tmpPath(a), new byte[] {1});
    Files.write(b, new byte[] {1});
    Files.createDirectories(storage.checkpointDirectory("job", 8));

    assertThat(storage.deleteSnapshot("job", 7, "a#0")).isTrue();
    assertThat(a).doesNotExist();
    assertThat(SnapshotFile.tmpPath(a)).doesNotExist();
    assertThat(storage.deleteSnapshot("job", 7, "a#0")).isFalse();
    assertThat(storage.tasks("job", 7)).containsExactly("b#0");

    assertThat(storage.deleteCheckpoint("job", 7)).isTrue();
    assertThat(storage.checkpointDirectory("job", 7)).doesNotExist();
    assertThat(storage.deleteCheckpoint("job", 7)).isFalse();
    assertThat(storage.checkpointIds("job")).containsExactly(8L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"counts#3", "job-1.v2", "A_b@c+d=e", "0", "x.snap"})
  void acceptsNamesThatAreOnePathSegment(String name) {
    assertThat(CheckpointStorage.checkName("task name", name)).isEqualTo(name);
    assertThat(new CheckpointStorage(dir).snapshotPath(name, 1, name).getParent().getParent())
        .isEqualTo(dir.resolve(name));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        ".",
        "..",
        "../etc",
        "a/b",
        "/abs",
        "a\\b",
        "a..b",
        ".hidden",
        "-flag",
        "a b",
        "tab\there",
        "nul\u0000",
        "colon:name",
        "naïve"
      })
  void rejectsNamesThatAreNotOnePathSegment(String name) {
    CheckpointStorage storage = new CheckpointStorage(dir);
    assertThatThrownBy(() -> storage.snapshotPath("job", 1, name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid task name \"" + name + "\": ")
        .hasMessageContaining("path segment");
    assertThatThrownBy(() -> storage.checkpointIds(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid job id \"" + name + "\": ");
  }

  @Test
  void messagesSayWhatIsWrong() {
    assertThatThrownBy(() -> CheckpointStorage.checkName("task name", "a/b"))
        .hasMessageContaining("it contains '/' at index 1");
    assertThatThrownBy(() -> CheckpointStorage.checkName("job id", "../x"))
        .hasMessageContaining("it contains \"..\"");
    assertThatThrownBy(() -> CheckpointStorage.checkName("job id", "tab\there"))
        .hasMessageContaining("it contains '\\u0009' at index 3");
    assertThatThrownBy(() -> CheckpointStorage.checkName("job id", "x".repeat(129)))
        .hasMessageContaining("it has 129 characters, more than 128");
    assertThatThrownBy(() -> CheckpointStorage.checkName("job id", "-x"))
        .hasMessageContaining("it starts with '-'");
  }

  @Test
  void rejectsNegativeCheckpointIds() {
    assertThatThrownBy(() -> new CheckpointStorage(dir).checkpointDirectory("job", -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("checkpoint id must not be negative, got -1");
  }
}
