package io.koala.runtime.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.koala.runtime.internal.journal.JournalFile.Event;
import io.koala.store.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The file format of {@link FileJournal} without Pekko: what is appended is read back after a
 * reopen, a tail torn at any byte or corrupted is truncated (with a WARN) and never read, and
 * deletions survive a reopen with the highest sequence number.
 */
class JournalFileTest {
  @TempDir Path dir;

  private Path file() {
    return dir.resolve("job.journal");
  }

  private static Event event(long seq) {
    return new Event(seq, ("event-" + seq).getBytes(StandardCharsets.UTF_8));
  }

  private static List<List<Event>> writes(long from, long to) {
    List<List<Event>> out = new ArrayList<>();
    for (long s = from; s <= to; s++) {
      out.add(List.of(event(s)));
    }
    return out;
  }

  private static List<String> read(JournalFile f, long from, long to, long max) throws IOException {
    List<String> out = new ArrayList<>();
    f.replay(
        from,
        to,
        max,
        e -> out.add(e.sequenceNr() + ":" + new String(e.payload(), StandardCharsets.UTF_8)));
    return out;
  }

  private static List<String> all(JournalFile f) throws IOException {
    return read(f, 1, Long.MAX_VALUE, Long.MAX_VALUE);
  }

  @Test
  void whatIsAppendedIsReadAfterAReopen() throws IOException {
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.highestSequenceNr()).isZero();
      assertThat(all(f)).isEmpty();
      f.append(List.of(List.of(event(1), event(2)), List.of(event(3))));
      f.append(writes(4, 5));
    }
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.truncatedBytes()).isZero();
      assertThat(f.highestSequenceNr()).isEqualTo(5);
      assertThat(all(f))
          .containsExactly("1:event-1", "2:event-2", "3:event-3", "4:event-4", "5:event-5");
      assertThat(read(f, 2, 4, 2)).containsExactly("2:event-2", "3:event-3");
      assertThat(read(f, 4, 9, 10)).containsExactly("4:event-4", "5:event-5");
      f.append(writes(6, 6));
      assertThat(f.highestSequenceNr()).isEqualTo(6);
    }
  }

  @Test
  void aTailTornAtAnyByteIsTruncatedAndNeverRead() throws IOException {
    try (JournalFile f = JournalFile.open(file())) {
      f.append(writes(1, 3));
    }
    long intact = Files.size(file());
    // the last write: one atomic write of two events, as a crash may leave any prefix of it
    try (JournalFile f = JournalFile.open(file())) {
      f.append(List.of(List.of(event(4), event(5))));
    }
    byte[] whole = Files.readAllBytes(file());
    Path torn = dir.resolve("torn.journal");
    for (int cut = (int) intact + 1; cut < whole.length; cut++) {
      Files.write(torn, Arrays.copyOf(whole, cut));
      ListAppender<ILoggingEvent> log = capture();
      try (JournalFile f = JournalFile.open(torn)) {
        assertThat(f.truncatedBytes()).as("cut at %d", cut).isEqualTo(cut - intact);
        assertThat(f.highestSequenceNr()).isEqualTo(3);
        assertThat(all(f)).containsExactly("1:event-1", "2:event-2", "3:event-3");
        // the journal goes on where the torn write began
        f.append(List.of(List.of(event(4))));
      }
      assertThat(warnings(log))
          .singleElement()
          .satisfies(w -> assertThat(w).contains(torn.toString(), "torn"));
      try (JournalFile f = JournalFile.open(torn)) {
        assertThat(f.truncatedBytes()).isZero();
        assertThat(all(f)).endsWith("4:event-4");
      }
    }
  }

  @Test
  void aCorruptLastRecordOrAZeroFilledTailIsTruncated() throws IOException {
    try (JournalFile f = JournalFile.open(file())) {
      f.append(writes(1, 3));
    }
    long size = Files.size(file());
    // a byte of the last record's payload flipped: its checksum fails
    try (FileChannel c = FileChannel.open(file(), StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[] {'X'}), size - 1);
    }
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.truncatedBytes()).isPositive();
      assertThat(all(f)).containsExactly("1:event-1", "2:event-2");
      assertThat(f.highestSequenceNr()).isEqualTo(2);
    }
    // zeros after the end (a file extended but never written): length 0 is no record
    long before = Files.size(file());
    Files.write(file(), new byte[64], StandardOpenOption.APPEND);
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.truncatedBytes()).isEqualTo(64);
      assertThat(all(f)).containsExactly("1:event-1", "2:event-2");
    }
    assertThat(Files.size(file())).isEqualTo(before);
  }

  @Test
  void deletionsKeepTheHighestSequenceNumberAndSurviveAReopen() throws IOException {
    try (JournalFile f = JournalFile.open(file())) {
      f.append(writes(1, 10));
      long full = Files.size(file());
      f.deleteTo(4);
      assertThat(read(f, 1, 6, 10)).containsExactly("5:event-5", "6:event-6");
      assertThat(Files.size(file())).isLessThan(full);
      f.deleteTo(3); // below what is deleted: nothing changes
      assertThat(f.deletedTo()).isEqualTo(4);
    }
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.deletedTo()).isEqualTo(4);
      assertThat(all(f)).hasSize(6).first().isEqualTo("5:event-5");
      f.deleteTo(Long.MAX_VALUE); // everything: up to the highest
      assertThat(all(f)).isEmpty();
      assertThat(f.highestSequenceNr()).isEqualTo(10);
    }
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(f.highestSequenceNr()).isEqualTo(10);
      assertThat(f.deletedTo()).isEqualTo(10);
      assertThatThrownBy(() -> f.append(writes(10, 10)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("sequence number 10 is not above 10");
      f.append(writes(11, 12));
      assertThat(all(f)).containsExactly("11:event-11", "12:event-12");
    }
  }

  @Test
  void aRewriteACrashInterruptedIsDiscardedAndTheFileKept() throws IOException {
    try (JournalFile f = JournalFile.open(file())) {
      f.append(writes(1, 2));
    }
    Path leftover = dir.resolve("job.journal.rewrite");
    Files.write(leftover, new byte[] {1, 2, 3});
    try (JournalFile f = JournalFile.open(file())) {
      assertThat(all(f)).containsExactly("1:event-1", "2:event-2");
    }
    assertThat(leftover).doesNotExist();
  }

  @Test
  void aFileThatIsNoJournalIsRefused() throws IOException {
    Files.writeString(file(), "not a journal");
    assertThatThrownBy(() -> JournalFile.open(file()))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("is not a Koala journal file");
  }

  @Test
  void fileNamesAreSafeAndDistinguishIdsThatDifferOnlyInCase() {
    String a = FileJournal.fileName("koala-job|Orders/EU");
    String b = FileJournal.fileName("koala-job|orders/eu");
    assertThat(a).matches("[a-z0-9_-]+\\.journal").startsWith("koala-job_orders_eu-");
    assertThat(a).isNotEqualTo(b);
    assertThat(FileJournal.fileName("x".repeat(500))).hasSizeLessThan(100);
  }

  // ------------------------------------------------------------------ log capture

  private static Logger logger() {
    return (Logger) LoggerFactory.getLogger(JournalFile.class);
  }

  private static ListAppender<ILoggingEvent> capture() {
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger().addAppender(appender);
    return appender;
  }

  private static List<String> warnings(ListAppender<ILoggingEvent> appender) {
    logger().detachAppender(appender);
    return appender.list.stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }
}
