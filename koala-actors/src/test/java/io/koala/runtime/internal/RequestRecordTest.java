package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.coordinator.Change;
import io.koala.coordinator.JobInput;
import io.koala.coordinator.JobReply;
import io.koala.routing.PartitionPolicy;
import io.koala.serialization.KryoSerde;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A journaled request read back by a coordinator whose workers are numbered differently (another
 * node's), or that lacks the migration's worker.
 */
class RequestRecordTest {
  private static final ActorTestKit KIT = ActorTestKit.create("request-record");
  private final KryoSerde serde = new KryoSerde(KoalaSerialization.registry(KIT.system()));
  private final ActorRef<Worker.Command> a = KIT.<Worker.Command>createTestProbe().ref();
  private final ActorRef<Worker.Command> b = KIT.<Worker.Command>createTestProbe().ref();
  private final ActorRef<Worker.Command> c = KIT.<Worker.Command>createTestProbe().ref();
  private final TestProbe<JobReply.Outcome> caller = KIT.createTestProbe();

  @AfterAll
  static void stop() {
    KIT.shutdownTestKit();
  }

  private byte[] migrationToB() {
    return RequestRecord.encode(
        serde,
        new JobInput.JournaledRequest(
            new Change.Migrate("count", 0, 1), List.of(new ActorReply<>(caller.ref()))),
        List.of(a, b, c));
  }

  @Test
  void aMigrationGoesToTheSameWorkerUnderTheIndexTheNextCoordinatorKnowsItBy() {
    JobInput.Decoded<JobInput.JournaledRequest> d =
        RequestRecord.decode(serde, 4, migrationToB(), List.of(c, b, a), true);
    assertThat(d.error()).isNull();
    assertThat(d.id()).isEqualTo(4);
    assertThat(d.value().change()).isEqualTo(new Change.Migrate("count", 0, 1));
    d = RequestRecord.decode(serde, 4, migrationToB(), List.of(b, a), true);
    assertThat(d.value().change()).isEqualTo(new Change.Migrate("count", 0, 0));
    d.value().replyTo().forEach(r -> r.tell(new JobReply.Rejected(null, "x")));
    assertThat(caller.receiveMessage()).isInstanceOf(JobReply.Rejected.class);
  }

  @Test
  void aMigrationToAWorkerTheNextCoordinatorLacksCannotRunAndKeepsItsCaller() {
    JobInput.Decoded<JobInput.JournaledRequest> d =
        RequestRecord.decode(serde, 4, migrationToB(), List.of(a, c), true);
    assertThat(d.error()).contains("is not a worker of this coordinator");
    assertThat(d.value().replyTo()).hasSize(1);
  }

  @Test
  void aCoordinatorThatIsNotShardedKeepsTheIndex() {
    JobInput.Decoded<JobInput.JournaledRequest> d =
        RequestRecord.decode(serde, 4, migrationToB(), List.of(c, a), false);
    assertThat(d.error()).isNull();
    assertThat(d.value().change()).isEqualTo(new Change.Migrate("count", 0, 1));
  }

  @Test
  void aBareChangeOfAnOlderJournalIsARequestNobodyWaitsFor() {
    Change rescale = new Change.Rescale("count", 3, PartitionPolicy.even());
    JobInput.Decoded<JobInput.JournaledRequest> d =
        RequestRecord.decode(serde, 2, serde.toBytes(rescale), List.of(a), true);
    assertThat(d.error()).isNull();
    assertThat(d.value()).isEqualTo(new JobInput.JournaledRequest(rescale, List.of()));
  }
}
