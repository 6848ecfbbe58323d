package io.koala.runtime.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import io.koala.runtime.internal.journal.JobJournal.CheckpointAck;
import io.koala.runtime.internal.journal.JobJournal.RecordCheckpoint;
import io.koala.runtime.internal.journal.JobJournal.Recover;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the coordinator sees when a write fails, on Pekko's in-memory persistence testkit (which
 * serializes every event and snapshot): no reply to the failed command, stashed commands handled
 * after the restart, and a stop after too many failures in a row.
 */
class JobJournalFailureTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final ActorTestKit KIT =
      ActorTestKit.create(
          "journal-failure",
          PersistenceTestKitPlugin.getInstance()
              .config()
              .withFallback(PersistenceTestKitSnapshotPlugin.config())
              .withFallback(ConfigFactory.load()));
  private static final JournalSettings SETTINGS =
      new JournalSettings(
          PersistenceTestKitPlugin.PluginId(),
          PersistenceTestKitSnapshotPlugin.PluginId(),
          100,
          2,
          Duration.ofMillis(20),
          Duration.ofMillis(100),
          2);
  private static final PersistenceTestKit PERSISTENCE = PersistenceTestKit.create(KIT.system());

  @BeforeEach
  void clear() {
    PERSISTENCE.clearAll();
    PERSISTENCE.resetPolicy();
  }

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private static TestProbe<StatusReply<CheckpointAck>> record(
      ActorRef<JobJournal.Command> journal, long id) {
    TestProbe<StatusReply<CheckpointAck>> probe = KIT.createTestProbe();
    journal.tell(new RecordCheckpoint(id, new byte[] {(byte) id}, 3, probe.ref()));
    return probe;
  }

  @Test
  void aFailedWriteGetsNoReplyAndTheResentCommandSucceedsAfterTheRestart() {
    ActorRef<JobJournal.Command> journal = KIT.spawn(JobJournal.create("job-f1", SETTINGS));
    PERSISTENCE.failNextPersisted();
    TestProbe<StatusReply<CheckpointAck>> failed = record(journal, 1);
    // sent while the journal backs off: stashed, handled after the replay
    TestProbe<StatusReply<CheckpointAck>> resent = record(journal, 1);
    assertThat(resent.receiveMessage(TIMEOUT).getValue())
        .isEqualTo(new CheckpointAck(1, List.of()));
    failed.expectNoMessage(Duration.ofMillis(100));
    TestProbe<JournalState> state = KIT.createTestProbe();
    journal.tell(new Recover(state.ref()));
    assertThat(state.receiveMessage(TIMEOUT).checkpointIds()).containsExactly(1L);
  }

  @Test
  void theJournalStopsAfterTooManyFailuresInARow() {
    ActorRef<JobJournal.Command> journal = KIT.spawn(JobJournal.create("job-f2", SETTINGS));
    TestProbe<Object> watcher = KIT.createTestProbe();
    PERSISTENCE.failNextNPersisted(100);
    // one failed write per attempt: the first, then one after each of the two restarts
    List<TestProbe<StatusReply<CheckpointAck>>> probes =
        List.of(record(journal, 1), record(journal, 2), record(journal, 3));
    watcher.expectTerminated(journal, TIMEOUT);
    for (TestProbe<StatusReply<CheckpointAck>> p : probes) {
      p.expectNoMessage(Duration.ofMillis(10));
    }
  }

  @Test
  void aFreshJournalRecoversWhatTheStoreHolds() {
    ActorRef<JobJournal.Command> journal = KIT.spawn(JobJournal.create("job-f3", SETTINGS));
    assertThat(record(journal, 4).receiveMessage(TIMEOUT).isSuccess()).isTrue();
    PERSISTENCE.expectNextPersisted(
        JobJournal.persistenceIdOf("job-f3").id(),
        new JournalEvent.CheckpointCompleted(4, Blob.of(new byte[] {4}), 3));
    KIT.stop(journal);
    ActorRef<JobJournal.Command> again = KIT.spawn(JobJournal.create("job-f3", SETTINGS));
    TestProbe<JournalState> state = KIT.createTestProbe();
    again.tell(new Recover(state.ref()));
    assertThat(state.receiveMessage(TIMEOUT).latest().orElseThrow().metadata().bytes())
        .containsExactly(4);
  }
}
