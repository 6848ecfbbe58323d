package io.koala.testkit.sim;

import io.koala.coordinator.JobEffect;
import io.koala.coordinator.JobInput;
import java.util.List;

/**
 * What a simulated job keeps outside its tasks: the journal, which answers every write (or fails
 * one, as {@link EnvironmentFaults} say) and recovers nothing, and the checkpoint files, the
 * worker's in-memory snapshots, deleted, discarded and quarantined as the job core says. Its
 * answers travel to the coordinator through the simulated network.
 */
final class SimulatedStorage {
  private static final String JOURNAL = "journal";

  private final Simulation sim;
  private final SimulatedWorker worker;

  SimulatedStorage(Simulation sim, SimulatedWorker worker) {
    this.sim = sim;
    this.worker = worker;
  }

  /** Carries out {@code e} when it is the journal's or the files'; returns whether it was. */
  boolean carryOut(JobEffect e) {
    if (e instanceof JobEffect.RecoverJournal) {
      answer(
          new JobInput.Recovered(
              new JobInput.RecoveredJournal(0, null, null, List.of(), 0, List.of(), 0, null),
              null));
    } else if (e instanceof JobEffect.JournalRequest r) {
      answer(new JobInput.RequestJournaled(r.seq(), null));
    } else if (e instanceof JobEffect.JournalCheckpoint j) {
      String error =
          sim.environment().journalFails(j.attempt(), j.checkpoint().id())
              ? "the journal cannot be written (injected)"
              : null;
      answer(new JobInput.Journaled(j.attempt(), j.checkpoint().id(), error));
    } else if (e instanceof JobEffect.JournalRequestDone || e instanceof JobEffect.JournalDiscard) {
      answer(JobInput.CheckpointTick.INSTANCE);
    } else if (e instanceof JobEffect.JournalEnd) {
      answer(new JobInput.EndJournaled(null));
    } else if (e instanceof JobEffect.DeleteSnapshot d) {
      worker.files.remove(d.file());
    } else if (e instanceof JobEffect.DiscardCheckpoint d) {
      d.snapshots().forEach(worker.files::remove);
    } else if (e instanceof JobEffect.QuarantineCheckpoint q) {
      q.snapshots().forEach(worker.files::remove); // moved aside: never restored again
    } else if (e instanceof JobEffect.DeleteCheckpoints) {
      worker.files.clear();
    } else {
      return e instanceof JobEffect.WriteMetadata; // the in-memory files need no metadata file
    }
    return true;
  }

  private void answer(JobInput input) {
    sim.send(JOURNAL, SimulatedWorker.COORDINATOR, input);
  }
}
