package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.coordinator.JobInput;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.deploy.DeploymentPlan;
import io.koala.function.KeyValue;
import io.koala.job.BucketLoads;
import io.koala.job.CheckpointStats;
import io.koala.job.ErrorInfo;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.StatePlaneStats;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.ExecutionPlan;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import io.koala.protocol.ChannelItem;
import io.koala.protocol.ChannelSettings;
import io.koala.protocol.Credit;
import io.koala.protocol.Deliver;
import io.koala.protocol.EndOfChannel;
import io.koala.protocol.KoalaMessage;
import io.koala.protocol.RecordBatch;
import io.koala.protocol.StateMessage;
import io.koala.protocol.TaskSetup;
import io.koala.serialization.TypeRegistry;
import io.koala.task.TaskTimer;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every message Koala's actors exchange is registered with the runtime's serializer, found by
 * scanning the classpath rather than listed by hand, and the data-plane messages survive a round
 * trip through Pekko's serialization.
 */
class MessageCoverageTest {
  private static ActorSystem<Void> system;
  private static TypeRegistry registry;
  private static final JavaClasses CLASSES =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.koala");

  @BeforeAll
  static void startSystem() {
    system = ActorSystem.create(Behaviors.empty(), "message-coverage");
    registry = KoalaSerialization.registry(system);
  }

  @AfterAll
  static void stopSystem() throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Concrete classes (records, enums, enum constant bodies, classes) that are a {@code type}. */
  private static List<Class<?>> concreteImplementationsOf(Class<?> type) {
    List<Class<?>> out = new ArrayList<>();
    for (JavaClass c : CLASSES) {
      if (c.isAssignableTo(type)
          && !c.isInterface()
          && !c.getModifiers().contains(JavaModifier.ABSTRACT)) {
        out.add(c.reflect());
      }
    }
    return out;
  }

  /**
   * API values that travel as whole messages although they are no {@link KoalaMessage} (an internal
   * type): {@code reference.conf} binds each to Koala's serializer by name.
   */
  static final List<Class<?>> BOUND_API_VALUES =
      List.of(JobMetrics.class, TaskMetricsSnapshot.class);

  static Stream<Class<?>> messageClasses() {
    List<Class<?>> all = new ArrayList<>(concreteImplementationsOf(KoalaMessage.class));
    all.addAll(concreteImplementationsOf(ChannelItem.class));
    all.addAll(BOUND_API_VALUES);
    return all.stream();
  }

  @Test
  void theScanFindsTheKnownMessages() {
    List<Class<?>> found = messageClasses().toList();
    assertThat(found)
        .contains(
            Deliver.class,
            Credit.class,
            TaskSetup.class,
            TaskSetup.InputSpec.class,
            TaskMetricsSnapshot.class,
            JobMetrics.class,
            RecordBatch.class,
            EndOfChannel.class,
            TaskActor.Start.class,
            io.koala.coordinator.JobReply.Collected.class);
    assertThat(found).hasSizeGreaterThan(25);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("messageClasses")
  void everyMessageClassIsRegistered(Class<?> message) {
    assertThat(registry.isRegistered(message))
        .as("%s is a message but is not registered with KoalaSerialization", message.getName())
        .isTrue();
  }

  /**
   * A registered record is only serializable if its fields are: every Koala type a message record
   * holds directly (enums, records, classes; for an interface, each of its implementations) is
   * registered too.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("messageClasses")
  void everyKoalaTypeAMessageHoldsIsRegistered(Class<?> message) {
    if (!message.isRecord()) {
      return;
    }
    for (RecordComponent rc : message.getRecordComponents()) {
      Class<?> type = rc.getType();
      if (!type.getName().startsWith("io.koala.")) {
        continue;
      }
      List<Class<?>> concrete =
          type.isInterface() ? concreteImplementationsOf(type) : List.of(type);
      for (Class<?> c : concrete) {
        assertThat(registry.isRegistered(c))
            .as("%s.%s holds a %s, which is not registered", message.getName(), rc.getName(), c)
            .isTrue();
      }
    }
  }

  // ------------------------------------------------------------------ round trips

  private static Object roundTrip(Object message) {
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
    Serializer serializer = serialization.findSerializerFor(message);
    assertThat(serializer).isInstanceOf(KoalaSerializer.class);
    byte[] bytes = serialization.serialize(message).get();
    return serialization.deserialize(bytes, serializer.identifier(), "").get();
  }

  @Test
  void deliverWithARecordBatchRoundTrips() {
    Object[] values = {"word", 42L, new KeyValue<>("k", 7L), null, List.of(1, 2)};
    long[] timestamps = {Long.MIN_VALUE, -5, 0, 1_700_000_000_000L, Long.MAX_VALUE};
    Deliver d = new Deliver(3, 17, new RecordBatch(values, timestamps, values.length));
    Deliver back = (Deliver) roundTrip(d);
    assertThat(back.channel()).isEqualTo(3);
    assertThat(back.seq()).isEqualTo(17);
    RecordBatch batch = (RecordBatch) back.item();
    assertThat(batch.size()).isEqualTo(values.length);
    for (int i = 0; i < values.length; i++) {
      assertThat(batch.value(i)).as("value %d", i).isEqualTo(values[i]);
      assertThat(batch.timestamp(i)).as("timestamp %d", i).isEqualTo(timestamps[i]);
    }
  }

  @Test
  void onlyTheFilledPartOfABatchTravels() {
    Deliver d = new Deliver(0, 0, new RecordBatch(new Object[] {"a", "b", "c"}, new long[3], 2));
    RecordBatch batch = (RecordBatch) ((Deliver) roundTrip(d)).item();
    assertThat(batch.size()).isEqualTo(2);
    assertThat(batch.value(1)).isEqualTo("b");
  }

  @Test
  void deliverOfEndOfChannelRoundTrips() {
    Deliver back = (Deliver) roundTrip(new Deliver(1, 2, EndOfChannel.INSTANCE));
    assertThat(back).isEqualTo(new Deliver(1, 2, EndOfChannel.INSTANCE));
    assertThat(back.item()).isSameAs(EndOfChannel.INSTANCE);
  }

  @Test
  void creditRoundTrips() {
    assertThat(roundTrip(new Credit(5, Long.MAX_VALUE))).isEqualTo(new Credit(5, Long.MAX_VALUE));
  }

  @Test
  void taskSetupRoundTrips() {
    DataflowBuilder b = Dataflow.builder("wc").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("a")).partitions(2))
        .keyBy((String w) -> w)
        .count("count")
        .sink(SinkSpec.collecting("out"));
    ExecutionPlan plan = ExecutionPlan.of(b.build().plan());
    DeploymentPlan deployment =
        DeploymentPlan.of("job-7", plan, 2, new ChannelSettings(1024, 262_144, 5, 8));
    for (TaskSetup setup : deployment.setups().values()) {
      assertThat(roundTrip(setup)).isEqualTo(setup);
    }
    TaskSetup keyed = deployment.setups().get(new TaskId(new OperatorId("count"), 1));
    assertThat(keyed.inputRouting()).hasSize(128);
    assertThat(roundTrip(keyed)).usingRecursiveComparison().isEqualTo(keyed);
  }

  @Test
  void errorInfoRoundTrips() {
    TaskId task = new TaskId(new OperatorId("count"), 1);
    ErrorInfo e = ErrorInfo.of("count", task, "some-key", new IllegalStateException("boom"));
    JobInput.TaskFailed failed = new JobInput.TaskFailed(task, e);
    assertThat(roundTrip(failed)).isEqualTo(failed);
    ErrorInfo noKey =
        ErrorInfo.of("src", new TaskId(new OperatorId("src"), 0), null, new RuntimeException());
    JobInput.DeployFailed deploy = new JobInput.DeployFailed(1, noKey);
    assertThat(roundTrip(deploy)).isEqualTo(deploy);
  }

  @Test
  void theApiValuesBoundToTheSerializerRoundTripWhole() {
    JobMetrics m =
        new JobMetrics(
            "job-1",
            JobStatus.RUNNING,
            5,
            List.of(),
            List.of(),
            Map.of(new TaskId(new OperatorId("count"), 0), 1),
            0,
            CheckpointStats.NONE,
            null);
    assertThat(roundTrip(m)).isEqualTo(m);
  }

  @Test
  void aReleaseOfSeveralKeysRoundTrips() {
    StateMessage.Release r =
        new StateMessage.Release(
            new TaskId(new OperatorId("count"), 1),
            List.of(
                new StateMessage.Released(new StateMessage.KeyRef(3, new byte[] {1, 2}), 7),
                new StateMessage.Released(new StateMessage.KeyRef(90, new byte[] {9}), 8)));
    StateMessage.Release back = (StateMessage.Release) roundTrip(r);
    assertThat(back).usingRecursiveComparison().isEqualTo(r);
    assertThat(back.keys()).extracting(StateMessage.Released::generation).containsExactly(7L, 8L);
  }

  @Test
  void aStateReplyRoundTripsWithItsKeysStatesWrittenFlat() {
    StateMessage.KeyRef a = new StateMessage.KeyRef(300, new byte[] {1, 2, 3});
    StateMessage.KeyRef b = new StateMessage.KeyRef(4, new byte[0]);
    byte[] ns = {(byte) 0xFF};
    StateMessage.KeyState served =
        new StateMessage.KeyState(
            a,
            Long.MAX_VALUE,
            List.of(
                io.koala.store.KeyLayout.stateKey(300, a.key(), 1, new byte[0]),
                io.koala.store.KeyLayout.stateKey(300, a.key(), 2, ns)),
            List.of(new byte[] {9}, new byte[0]));
    // a store key outside the key's prefix travels whole
    StateMessage.KeyState foreign =
        new StateMessage.KeyState(b, 3, List.of(new byte[] {7}), List.of(new byte[] {8, 8}));
    StateMessage.KeyState absent = new StateMessage.KeyState(b, 0, List.of(), List.of());
    StateMessage.StateReply reply =
        new StateMessage.StateReply(
            11,
            new TaskId(new OperatorId("count"), 2),
            List.of(served, foreign, absent),
            new StateMessage.DrainChunk(300, List.of(served), new byte[] {5}, false),
            List.of(a, b));
    StateMessage.StateReply back = (StateMessage.StateReply) roundTrip(reply);
    assertThat(back).usingRecursiveComparison().isEqualTo(reply);
    assertThat(back.keys().get(0).storeKeys().get(1))
        .isEqualTo(io.koala.store.KeyLayout.stateKey(300, a.key(), 2, ns));
  }

  @Test
  void taskMetricsSnapshotRoundTrips() {
    LatencyHistogram latency = LatencyHistogram.of(1_000, 2_000_000);
    TaskMetricsSnapshot m =
        new TaskMetricsSnapshot(
            new TaskId(new OperatorId("count"), 2),
            "RUNNING",
            100,
            90,
            12.5,
            11.25,
            7,
            latency,
            3,
            0.25,
            4096,
            12,
            true,
            1_700_000_000_000L,
            5,
            new TaskMetricsSnapshot.Reconfiguration(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
            new StatePlaneStats(
                new long[] {1, 2, 3, 4, 5, 6, 7}, 6, Map.of(1, latency), 7, 8, 9, 10),
            List.of(
                new TaskMetricsSnapshot.OperatorCounts(
                    new OperatorId("count"), 100, 95, 12.5, 5, 2),
                new TaskMetricsSnapshot.OperatorCounts(new OperatorId("out"), 95, 0, 11.875, 0, 0)),
            3_500_000_000L,
            0.625,
            12.25,
            new BucketLoads(
                128, new int[] {3, 77}, new double[] {10.5, 1.75}, new double[] {0.5, 0.125}));
    TaskMetricsSnapshot back = (TaskMetricsSnapshot) roundTrip(m);
    assertThat(back)
        .usingRecursiveComparison()
        .withEqualsForType(LatencyHistogram::equals, LatencyHistogram.class)
        .isEqualTo(m);
    assertThat(back.batchLatency()).isEqualTo(latency);
    assertThat(back.bucketLoads()).isEqualTo(m.bucketLoads());
    assertThat(back.busyNanos()).isEqualTo(3_500_000_000L);
    assertThat(back.statePlane().stallNanos(StatePlaneStats.Stall.ALIGNMENT)).isEqualTo(6);
    assertThat(back.statePlane().fetchRoundTrips(1).count()).isEqualTo(2);
    assertThat(back.statePlane().fetchRoundTrips(0).count()).isZero();
    assertThat(back.batchLatency().count()).isEqualTo(2);
    assertThat(back.batchLatency().max())
        .isEqualTo(latency.max())
        .isGreaterThanOrEqualTo(2_000_000);
  }

  @Test
  void runtimeMessagesWithActorReferencesRoundTrip() {
    TaskActor.TaskRef ref =
        new TaskActor.TaskRef(
            new TaskId(new OperatorId("count"), 0),
            Adapter.toTyped(Adapter.toClassic(system).deadLetters()),
            Adapter.toTyped(Adapter.toClassic(system).deadLetters()));
    Object back = roundTrip(ref);
    assertThat(back).isInstanceOf(TaskActor.TaskRef.class);
    assertThat(((TaskActor.TaskRef) back).task()).isEqualTo(ref.task());
    assertThat(roundTrip(new TaskActor.Wake(TaskTimer.FLUSH)))
        .isEqualTo(new TaskActor.Wake(TaskTimer.FLUSH));
    assertThat(roundTrip(TaskActor.Tick.INSTANCE)).isSameAs(TaskActor.Tick.INSTANCE);
  }
}
