package io.koala.runtime.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.runtime.internal.journal.JobJournal.CheckpointAck;
import io.koala.runtime.internal.journal.JobJournal.DiscardAck;
import io.koala.runtime.internal.journal.JobJournal.DiscardCheckpoint;
import io.koala.runtime.internal.journal.JobJournal.RecordCheckpoint;
import io.koala.runtime.internal.journal.JobJournal.RecordRequest;
import io.koala.runtime.internal.journal.JobJournal.Recover;
import io.koala.runtime.internal.journal.JobJournal.RequestAck;
import io.koala.runtime.internal.journal.JobJournal.RequestDone;
import io.koala.runtime.internal.journal.JobJournal.RequestDoneAck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal on a store under the data directory (each subclass runs these tests on one: {@link
 * FileJobJournalIT}, {@link EmbeddedJobJournalIT}): what one ActorSystem records, the next one on
 * the same data directory recovers; two data directories are two journals. Every message crosses
 * Koala's serializer ({@code serialize-messages = on}).
 */
abstract class JobJournalIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private final List<ActorTestKit> kits = new ArrayList<>();

  @AfterEach
  void stopSystems() {
    for (ActorTestKit kit : kits) {
      kit.shutdownTestKit();
    }
  }

  // ------------------------------------------------------------------ harness

  /** The {@code koala.journal.store} these tests run on. */
  abstract JournalConfig.Store store();

  /**
   * The sequence numbers of {@code jobId}'s events still stored (deleted ones are gone), read while
   * the journal is idle.
   */
  abstract List<Long> storedEvents(JournalConfig journal, String jobId);

  /** A system on {@code dataDir} with the journal on {@link #store()}, its schema created first. */
  private Node start(Path dataDir, String overrides) {
    Config app =
        ConfigFactory.parseString(overrides)
            .withFallback(
                ConfigFactory.parseString("koala.journal.store = " + store().configName()))
            .withFallback(ConfigFactory.load());
    JournalConfig journal = JournalConfig.from(app, dataDir);
    journal.createSchema();
    ActorTestKit kit =
        ActorTestKit.create("journal", journal.pekkoConfig().withFallback(app).resolve());
    kits.add(kit);
    return new Node(kit, journal);
  }

  private Node start(Path dataDir) {
    return start(dataDir, "");
  }

  private void stop(Node node) {
    kits.remove(node.kit);
    node.kit.shutdownTestKit();
  }

  private record Node(ActorTestKit kit, JournalConfig journal) {
    ActorRef<JobJournal.Command> journalOf(String jobId) {
      return kit.spawn(JobJournal.create(jobId, journal.settings()));
    }

    JournalState recover(ActorRef<JobJournal.Command> j) {
      TestProbe<JournalState> probe = kit.createTestProbe();
      j.tell(new Recover(probe.ref()));
      return probe.expectMessageClass(JournalState.class, TIMEOUT);
    }

    CheckpointAck record(ActorRef<JobJournal.Command> j, long id, int retain) {
      TestProbe<StatusReply<CheckpointAck>> probe = kit.createTestProbe();
      j.tell(new RecordCheckpoint(id, metadata(id), retain, probe.ref()));
      return value(probe);
    }

    StatusReply<CheckpointAck> recordReply(ActorRef<JobJournal.Command> j, long id, byte[] m) {
      TestProbe<StatusReply<CheckpointAck>> probe = kit.createTestProbe();
      j.tell(new RecordCheckpoint(id, m, 3, probe.ref()));
      return probe.receiveMessage(TIMEOUT);
    }

    DiscardAck discard(ActorRef<JobJournal.Command> j, long id) {
      TestProbe<StatusReply<DiscardAck>> probe = kit.createTestProbe();
      j.tell(new DiscardCheckpoint(id, probe.ref()));
      return value(probe);
    }

    RequestAck request(ActorRef<JobJournal.Command> j, long seq) {
      TestProbe<StatusReply<RequestAck>> probe = kit.createTestProbe();
      j.tell(new RecordRequest(seq, ("rescale-" + seq).getBytes(), probe.ref()));
      return value(probe);
    }

    RequestDoneAck done(ActorRef<JobJournal.Command> j, long seq) {
      TestProbe<StatusReply<RequestDoneAck>> probe = kit.createTestProbe();
      j.tell(new RequestDone(seq, probe.ref()));
      return value(probe);
    }
  }

  private static <T> T value(TestProbe<StatusReply<T>> probe) {
    StatusReply<T> reply = probe.receiveMessage(TIMEOUT);
    assertThat(reply.isSuccess()).as("reply %s", reply).isTrue();
    return reply.getValue();
  }

  private static byte[] metadata(long id) {
    byte[] b = new byte[200];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (id * 31 + i);
    }
    return b;
  }

  // ------------------------------------------------------------------ tests

  @Test
  void aRestartedSystemRecoversTheJournal() {
    Node first = start(dir);
    ActorRef<JobJournal.Command> j = first.journalOf("job-1");
    assertThat(first.recover(j)).isEqualTo(JournalState.EMPTY);
    for (long id = 1; id <= 4; id++) {
      first.record(j, id, 3);
    }
    first.request(j, 1);
    first.request(j, 2);
    first.done(j, 1);
    JournalState before = first.recover(j);
    assertThat(before.checkpointIds()).containsExactly(2L, 3L, 4L);
    assertThat(before.requestSeqs()).containsExactly(2L);
    stop(first);

    Node second = start(dir);
    JournalState after = second.recover(second.journalOf("job-1"));
    assertThat(after).isEqualTo(before);
    assertThat(after.latest().orElseThrow().metadata().bytes()).isEqualTo(metadata(4));
    assertThat(after.request(2).orElseThrow().request().bytes()).isEqualTo("rescale-2".getBytes());
    assertThat(after.lastCheckpointId()).isEqualTo(4);
    // another job's journal on the same database is empty
    assertThat(second.recover(second.journalOf("job-2"))).isEqualTo(JournalState.EMPTY);
  }

  @Test
  void coordinatorStartsAndTheJobsEndSurviveARestart() {
    Node first = start(dir);
    ActorRef<JobJournal.Command> j = first.journalOf("job-1");
    TestProbe<JournalState> started = first.kit.createTestProbe();
    j.tell(new JobJournal.StartIncarnation(started.ref()));
    assertThat(started.receiveMessage(TIMEOUT).incarnations()).isEqualTo(1);
    first.record(j, 1, 3);
    TestProbe<StatusReply<JobJournal.EndAck>> ended = first.kit.createTestProbe();
    j.tell(new JobJournal.RecordEnd("CANCELLED", null, ended.ref()));
    assertThat(value(ended).status()).isEqualTo("CANCELLED");
    // an end is recorded once: a second one is acknowledged with the first
    j.tell(new JobJournal.RecordEnd("FAILED", "late", ended.ref()));
    assertThat(value(ended).status()).isEqualTo("CANCELLED");
    stop(first);

    Node second = start(dir);
    ActorRef<JobJournal.Command> again = second.journalOf("job-1");
    TestProbe<JournalState> restarted = second.kit.createTestProbe();
    again.tell(new JobJournal.StartIncarnation(restarted.ref()));
    JournalState state = restarted.receiveMessage(TIMEOUT);
    assertThat(state.incarnations()).isEqualTo(2);
    assertThat(state.endedStatus()).isEqualTo("CANCELLED");
    assertThat(state.endedError()).isNull();
    assertThat(state.checkpointIds()).containsExactly(1L);
  }

  @Test
  void aCoordinatorThatRestoresRecordsItsCheckpointOnlyOnAJournalWithoutOne() {
    Node node = start(dir);
    ActorRef<JobJournal.Command> j = node.journalOf("job-r");
    TestProbe<JournalState> started = node.kit.createTestProbe();
    JobJournal.RestoredCheckpoint given =
        new JobJournal.RestoredCheckpoint(57, Blob.of(metadata(57)), 2);
    j.tell(new JobJournal.StartIncarnation(started.ref(), given));
    JournalState first = started.receiveMessage(TIMEOUT);
    assertThat(first.incarnations()).isEqualTo(1);
    assertThat(first.checkpointIds()).as("the restored checkpoint, journaled").containsExactly(57L);
    assertThat(first.lastCheckpointId()).isEqualTo(57);
    node.record(j, 58, 2);
    // a coordinator that starts again with the same request finds the job's own checkpoints
    j.tell(new JobJournal.StartIncarnation(started.ref(), given));
    JournalState second = started.receiveMessage(TIMEOUT);
    assertThat(second.incarnations()).isEqualTo(2);
    assertThat(second.checkpointIds()).containsExactly(57L, 58L);
    stop(node);
  }

  @Test
  void retentionKeepsTheNewestAndReportsTheReleased() {
    Node node = start(dir);
    ActorRef<JobJournal.Command> j = node.journalOf("job-1");
    assertThat(node.record(j, 1, 2).released()).isEmpty();
    assertThat(node.record(j, 2, 2).released()).isEmpty();
    assertThat(node.record(j, 5, 2).released()).containsExactly(1L);
    assertThat(node.record(j, 6, 1).released()).containsExactly(2L, 5L);
    assertThat(node.recover(j).checkpointIds()).containsExactly(6L);
  }

  @Test
  void aDiscardedCheckpointIsNoLongerRecovered() {
    Node node = start(dir);
    ActorRef<JobJournal.Command> j = node.journalOf("job-1");
    node.record(j, 1, 3);
    node.record(j, 2, 3);
    assertThat(node.discard(j, 2)).isEqualTo(new DiscardAck(2, true));
    assertThat(node.discard(j, 2)).isEqualTo(new DiscardAck(2, false));
    stop(node);
    Node again = start(dir);
    ActorRef<JobJournal.Command> k = again.journalOf("job-1");
    JournalState s = again.recover(k);
    assertThat(s.latest().orElseThrow().id()).isEqualTo(1);
    // the next checkpoint is numbered above the discarded one
    assertThat(s.lastCheckpointId()).isEqualTo(2);
    assertThat(again.recordReply(k, 2, metadata(2)).isError()).isTrue();
    assertThat(again.record(k, 3, 3)).isEqualTo(new CheckpointAck(3, List.of()));
  }

  @Test
  void aRepeatedCommandIsAcknowledgedAndAnOutOfOrderOneRejected() {
    Node node = start(dir);
    ActorRef<JobJournal.Command> j = node.journalOf("job-1");
    node.record(j, 7, 3);
    StatusReply<CheckpointAck> repeat = node.recordReply(j, 7, metadata(7));
    assertThat(repeat.isSuccess()).isTrue();
    StatusReply<CheckpointAck> conflicting = node.recordReply(j, 7, new byte[] {1});
    assertThat(conflicting.isError()).isTrue();
    assertThat(conflicting.getError()).hasMessageContaining("job job-1: checkpoint 7");
    assertThat(node.recordReply(j, 3, metadata(3)).isError()).isTrue();
    node.request(j, 4);
    assertThat(node.request(j, 4)).isEqualTo(new RequestAck(4));
    assertThat(node.done(j, 4)).isEqualTo(new RequestDoneAck(4));
    assertThat(node.done(j, 4)).isEqualTo(new RequestDoneAck(4));
    assertThat(node.recover(j).requests()).isEmpty();
  }

  @Test
  @SuppressWarnings("serial") // awaitAssert's Creator is Serializable; the lambda never travels
  void snapshotsKeepReplayShortAndDeleteOlderEvents() {
    Node node = start(dir, "koala.journal.snapshot-every = 10");
    ActorRef<JobJournal.Command> j = node.journalOf("job-1");
    for (long id = 1; id <= 45; id++) {
      node.record(j, id, 3);
      if (id % 9 == 0) {
        node.request(j, id);
      }
      if (id % 9 == 3 && id > 9) {
        node.done(j, id - 12);
      }
    }
    JournalState before = node.recover(j);
    assertThat(before.checkpointIds()).containsExactly(43L, 44L, 45L);
    assertThat(before.requestSeqs()).containsExactly(36L, 45L);
    // 53 events, snapshots after 10, 20, ..., 50; two kept: events up to 30 are deleted
    JournalConfig journal = node.journal;
    TestProbe<Void> probe = node.kit.createTestProbe();
    List<Long> stored =
        probe.awaitAssert(
            TIMEOUT,
            () -> {
              List<Long> rows = storedEvents(journal, "job-1");
              assertThat(rows).first().isEqualTo(31L);
              return rows;
            });
    assertThat(stored).hasSize(53 - 30);
    stop(node);

    Node again = start(dir, "koala.journal.snapshot-every = 10");
    ActorRef<JobJournal.Command> k = again.journalOf("job-1");
    assertThat(again.recover(k)).isEqualTo(before);
    assertThat(again.record(k, 46, 3).released()).containsExactly(43L);
  }

  @Test
  void twoSystemsWithTwoDataDirectoriesDoNotInterfere() {
    Node a = start(dir.resolve("a"));
    Node b = start(dir.resolve("b"));
    ActorRef<JobJournal.Command> ja = a.journalOf("job-1");
    ActorRef<JobJournal.Command> jb = b.journalOf("job-1");
    a.record(ja, 1, 3);
    b.record(jb, 10, 3);
    b.record(jb, 11, 3);
    a.request(ja, 5);
    assertThat(a.recover(ja).checkpointIds()).containsExactly(1L);
    assertThat(b.recover(jb).checkpointIds()).containsExactly(10L, 11L);
    stop(a);
    // b keeps working while a is gone, and a comes back with its own state
    b.record(jb, 12, 3);
    Node a2 = start(dir.resolve("a"));
    JournalState s = a2.recover(a2.journalOf("job-1"));
    assertThat(s.checkpointIds()).containsExactly(1L);
    assertThat(s.requestSeqs()).containsExactly(5L);
    assertThat(b.recover(jb).checkpointIds()).containsExactly(10L, 11L, 12L);
  }

  /** Not a benchmark: prints what a first start and a checkpoint's durable record cost here. */
  @Test
  void measuresFirstStartAndRecordRoundTrip() {
    long t0 = System.nanoTime();
    Config app =
        ConfigFactory.parseString("koala.journal.store = " + store().configName())
            .withFallback(ConfigFactory.load());
    JournalConfig journal = JournalConfig.from(app, dir);
    assertThat(journal.createSchema()).isEqualTo(store() == JournalConfig.Store.EMBEDDED);
    long schema = System.nanoTime() - t0;
    ActorTestKit kit =
        ActorTestKit.create("journal", journal.pekkoConfig().withFallback(app).resolve());
    kits.add(kit);
    Node node = new Node(kit, journal);
    ActorRef<JobJournal.Command> j = node.journalOf("job-1");
    node.recover(j);
    long firstReady = System.nanoTime() - t0;
    List<Long> rounds = new ArrayList<>();
    for (long id = 1; id <= 120; id++) {
      long s = System.nanoTime();
      node.record(j, id, 3);
      if (id > 20) { // the first ones warm up the pool and the JIT
        rounds.add(System.nanoTime() - s);
      }
    }
    Collections.sort(rounds);
    System.out.printf(
        "journal timings ("
            + store().configName()
            + "): schema creation %.1f ms, first start to recovered %.1f ms,"
            + " RecordCheckpoint round trip median %.2f ms, p90 %.2f ms, max %.2f ms (n=%d)%n",
        schema / 1e6,
        firstReady / 1e6,
        rounds.get(rounds.size() / 2) / 1e6,
        rounds.get(rounds.size() * 9 / 10) / 1e6,
        rounds.get(rounds.size() - 1) / 1e6,
        rounds.size());
    assertThat(journal.createSchema()).isFalse();
  }
}
