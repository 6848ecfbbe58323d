package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.connector.IngestSource;
import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runtime in the application's own ActorSystem ({@link KoalaRuntime#embeddedIn}): it runs jobs
 * there with checkpoints, closing it leaves the system running, a second runtime in the same system
 * resumes the job from its checkpoint, and settings Koala cannot run with fail at start-up naming
 * their path.
 */
class HostActorSystemTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final StateQuery<Long, Optional<Long>> COUNT =
      StateQuery.value("counter", "count", Long.class, Long.class);

  private static Dataflow counting(IngestSource<Long> events) {
    DataflowBuilder b = Dataflow.builder("hosted").parallelism(2);
    b.source(events)
        .keyBy(x -> x)
        .process("counter", StateQueryTest.Counter::new)
        .sink(SinkSpec.discarding("out"));
    return b.build();
  }

  @Test
  void aRuntimeInTheServicesActorSystemRunsJobsAndLeavesTheSystemRunning(@TempDir Path dir)
      throws Exception {
    KoalaConfig koala = CheckpointRecoveryTest.config(dir, Duration.ofSeconds(30));
    ActorSystem<Void> host =
        ActorSystem.create(
            Behaviors.empty(), "service", KoalaRuntime.hostConfig(ConfigFactory.load(), koala));
    try {
      IngestSource<Long> events = SourceSpec.ingest("events", 1_000);
      try (KoalaRuntime runtime = KoalaRuntime.embeddedIn(host, koala)) {
        JobHandle job = runtime.submit(counting(events));
        Ingest<Long> in = job.ingest(events);
        for (long i = 0; i < 300; i++) {
          in.put(i % 3);
        }
        Eventually.await(
            "key 2's count",
            WAIT,
            () -> job.query(COUNT, 2L).toCompletableFuture().join().orElse(0L) == 100L);
        job.checkpoint().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
      assertThat(host.getWhenTerminated().toCompletableFuture().isDone())
          .as("the service's ActorSystem outlives the runtime")
          .isFalse();

      // a runtime started again in the same system resumes the job from its checkpoint
      try (KoalaRuntime again = KoalaRuntime.embeddedIn(host, koala)) {
        JobHandle job = again.submit(counting(events));
        Eventually.await(
            "key 2's count restored",
            WAIT,
            () -> job.query(COUNT, 2L).toCompletableFuture().join().orElse(0L) == 100L);
        assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
      }
    } finally {
      host.terminate();
      host.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void theReadmeExampleStartsARuntimeInTheServicesSystem(@TempDir Path dataDir) throws Exception {
    DataflowBuilder b = Dataflow.builder("numbers").parallelism(2);
    b.source(SourceSpec.collection("numbers", List.of(1L, 2L, 2L)))
        .keyBy(x -> x)
        .count("count")
        .sink(SinkSpec.collecting("counts"));
    Dataflow dataflow = b.build();
    JobStatus status;
    // README-BEGIN
    Config settings = ConfigFactory.load();
    KoalaConfig koala = KoalaConfig.from(settings).withDataDir(dataDir);
    ActorSystem<Void> system =
        ActorSystem.create(Behaviors.empty(), "orders", KoalaRuntime.hostConfig(settings, koala));
    try (KoalaRuntime runtime = KoalaRuntime.embeddedIn(system, koala)) {
      status = runtime.submit(dataflow).await(Duration.ofSeconds(30));
    }
    // README-END
    assertThat(status).isEqualTo(JobStatus.FINISHED);
    assertThat(system.getWhenTerminated().toCompletableFuture().isDone()).isFalse();
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void settingsKoalaCannotRunWithFailAtStartUpNamingTheirPath(@TempDir Path dir) throws Exception {
    KoalaConfig koala = KoalaConfig.load();
    Config javaBound =
        ConfigFactory.parseString(
                "pekko.actor.serialization-bindings {\"io.koala.protocol.KoalaMessage\" = java}")
            .withFallback(ConfigFactory.load());
    ActorSystem<Void> host = ActorSystem.create(Behaviors.empty(), "misbound", javaBound);
    try {
      assertThatThrownBy(() -> KoalaRuntime.embeddedIn(host, koala))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("ActorSystem misbound cannot run Koala")
          .hasMessageContaining(
              "pekko.actor.serialization-bindings.\"io.koala.protocol.KoalaMessage\"");
      assertThatThrownBy(() -> KoalaRuntime.embeddedIn(host, koala.withSeparateSystems(true)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("koala.worker-systems = \"separate\"");
    } finally {
      host.terminate();
      host.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    assertThatThrownBy(
            () ->
                KoalaRuntime.hostConfig(
                    ConfigFactory.parseString(
                            "pekko.actor.provider = remote\n"
                                + "pekko.remote.artery.advanced.maximum-frame-size = 128 KiB")
                        .withFallback(ConfigFactory.load()),
                    koala))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining(
            "pekko.remote.artery.advanced.maximum-frame-size = \"128 KiB\" where Koala needs at"
                + " least 1048576");
    assertThatThrownBy(
            () ->
                KoalaRuntime.hostConfig(
                    ConfigFactory.load(), koala.withCheckpointInterval(Duration.ofSeconds(1))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.data-dir is not set");
  }
}
