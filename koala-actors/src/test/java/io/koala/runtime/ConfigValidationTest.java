package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.connector.SinkSpec;
import io.koala.connector.SourceSpec;
import io.koala.dataflow.Dataflow;
import io.koala.dataflow.DataflowBuilder;
import io.koala.function.KeyValue;
import io.koala.job.JobStatus;
import io.koala.protocol.ChannelSettings;
import io.koala.runtime.internal.EngineSettings;
import io.koala.serialization.TypeRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every invalid value fails at start-up with one error naming its path and what is allowed. */
class ConfigValidationTest {

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "koala.workers | 0 | allowed: [1, 1024]",
        "koala.workers | many | = \"many\" is invalid; expected an integer",
        "koala.worker-systems | both | allowed: \"shared\", \"separate\"",
        "koala.batch.max-records | 0 | allowed: [1, 1000000]",
        "koala.batch.max-bytes | 12 | allowed: [1024, 262144] bytes",
        "koala.batch.max-bytes | 1 MiB | allowed: [1024, 262144] bytes",
        "koala.batch.max-bytes | lots | expected a size",
        "koala.batch.linger | -1 ms | allowed: [0 s, 10 s]",
        "koala.batch.linger | soon | expected a duration",
        "koala.channel.credits | 0 | allowed: [1, 1024]",
        "koala.channel.max-waiting-bytes | 100 | allowed: [1024, 1099511627776] bytes",
        "koala.channel.max-waiting-bytes | plenty | expected a size",
        "koala.watermark.interval | 0 ms | allowed: [1 ms, 1 min]",
        "koala.delete-job-state | maybe | expected on/off",
        "koala.deploy-timeout | 0 s | allowed: [1 ms, 1 h]",
        "koala.reconfiguration.step-timeout | 2 h | allowed: [1 ms, 1 h]",
        "koala.reconfiguration.drain.piggyback-keys | -1 | allowed: [0, 100000]",
        "koala.reconfiguration.drain.idle-chunk-keys | all | expected an integer",
        "koala.reconfiguration.drain.interval | 0 ms | allowed: [1 ms, 1 min]",
        "koala.reconfiguration.hot-set.window | -1 s | allowed: [0 s, 1 h]",
        "koala.reconfiguration.hot-set.max-keys | -1 | allowed: [0, 67108864]",
        "koala.metrics.load-half-life | 500 ms | allowed: [1 s, 1 h]",
        "koala.metrics.load-half-life | 2 h | allowed: [1 s, 1 h]",
        "koala.autoscaler.enabled | sometimes | expected on/off",
        "koala.autoscaler.interval | 100 ms | allowed: [1 s, 1 h]",
        "koala.autoscaler.headroom | 0.8 | allowed: [1.0, 10.0]",
        "koala.autoscaler.headroom | lots | expected a number",
        "koala.autoscaler.scale-in-hysteresis | -0.1 | allowed: [0.0, 10.0]",
        "koala.autoscaler.cooldown | -1 s | allowed: [0 s, 1 d]",
        "koala.autoscaler.max-step | 0 | allowed: [1, 1024]",
        "koala.autoscaler.min-parallelism | 0 | allowed: [1, 1024]",
        "koala.autoscaler.max-parallelism | 0 | allowed: [1, 1024]",
        "koala.autoscaler.catch-up | 0 s | allowed: [1 s, 1 d]",
        "koala.autoscaler.lead | -1 s | allowed: [0 s, 1 h]",
        "koala.reconfiguration.protocol | drrs | allowed: [\"koala\", \"stop-restart\", \"eager\", \"fluid\"]",
        "koala.reconfiguration.buckets-per-step | 0 | allowed: [1, ",
        "koala.store.backend | rocksdb | allowed: \"lmdb\", \"remote\"",
        "koala.store.remote-services | 0 | allowed: [1, 64]",
        "koala.checkpoint.interval | often | expected off, or a duration",
        "koala.checkpoint.interval | 0 ms | allowed: off, or [1 ms, 1 d]",
        "koala.checkpoint.retained | 0 | allowed: [1, 1000]",
        "koala.checkpoint.max-restarts | -1 | allowed: [0, 1000000]",
        "koala.checkpoint.restart-backoff | -1 s | allowed: [0 s, 10 min]",
        "koala.checkpoint.restart-backoff | later | expected a duration",
        "koala.checkpoint.redeploy-timeout | 0 s | allowed: [1 ms, 1 h]",
        "koala.checkpoint.timeout | 0 s | allowed: [1 ms, 1 d]",
        "koala.checkpoint.tolerable-failures | -1 | allowed: [0, 1000000]",
        "koala.checkpoint.restarts-reset-after | 0 s | allowed: [1 ms, 365 d]",
        "koala.checkpoint.restart-strategy | fixed | allowed: \"exponential-delay\", \"failure-rate\"",
        "koala.serialization.max-depth | 8 | allowed: [16, 1024]",
        "koala.serialization.max-depth | 5000 | allowed: [16, 1024]",
        "koala.serialization.max-depth | deep | expected an integer",
        "koala.remote.tls.enabled | perhaps | expected on/off",
        "koala.remote.tls.require-mutual-authentication | perhaps | expected on/off",
      })
  void invalidValueNamesItsPath(String path, String value, String hint) {
    assertThatThrownBy(() -> KoalaConfig.load().with(path, value))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(path)
        .hasMessageContaining(hint);
  }

  @Test
  void unknownSerializationTypeNamesItsIndex() {
    assertThatThrownBy(
            () ->
                KoalaConfig.load()
                    .with(
                        "koala.serialization.types", List.of("java.lang.String", "com.acme.Nope")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.serialization.types[1]")
        .hasMessageContaining("com.acme.Nope");
  }

  @Test
  void scaleOnJoinRefusesABlankOperatorName() {
    assertThatThrownBy(
            () -> KoalaConfig.load().with("koala.cluster.scale-on-join", List.of("count", " ")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.cluster.scale-on-join")
        .hasMessageContaining("blank operator name");
    assertThatThrownBy(() -> KoalaConfig.load().with("koala.cluster.scale-on-join", "count"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.cluster.scale-on-join")
        .hasMessageContaining("expected a list of operator names");
  }

  @Test
  void autoscalerSettingsAreReadAndTheirBoundsChecked() {
    KoalaConfig c = KoalaConfig.load();
    assertThat(EngineSettings.of(c).autoscaler())
        .as("reference.conf and the settings' own defaults agree")
        .isEqualTo(io.koala.autoscaler.AutoscalerSettings.OFF);
    io.koala.autoscaler.AutoscalerSettings on =
        EngineSettings.of(
                c.with("koala.autoscaler.enabled", true)
                    .with("koala.autoscaler.headroom", 1.5)
                    .with("koala.autoscaler.operators", List.of("count")))
            .autoscaler();
    assertThat(on.enabled()).isTrue();
    assertThat(on.headroom()).isEqualTo(1.5);
    assertThat(on.covers("count")).isTrue();
    assertThat(on.covers("other")).isFalse();
    assertThatThrownBy(
            () ->
                KoalaConfig.load()
                    .with("koala.autoscaler.min-parallelism", 8)
                    .with("koala.autoscaler.max-parallelism", 4))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.autoscaler.max-parallelism = 4 is below")
        .hasMessageContaining("koala.autoscaler.min-parallelism = 8");
  }

  @Test
  void coordinatorRoleMustBeARoleNameOrEmpty() {
    assertThat(KoalaConfig.load().coordinatorRole()).isEmpty();
    assertThat(
            KoalaConfig.load()
                .with("koala.cluster.coordinator-role", "koala-coord")
                .coordinatorRole())
        .isEqualTo("koala-coord");
    assertThatThrownBy(() -> KoalaConfig.load().with("koala.cluster.coordinator-role", "a role"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.cluster.coordinator-role = \"a role\" is invalid");
  }

  /** words (source) → keyBy → count "count" → map "twice" (chained into count's tasks) → sink. */
  private static Dataflow scaled() {
    DataflowBuilder b = Dataflow.builder("scaled").parallelism(2);
    b.source(SourceSpec.collection("words", List.of("a", "b", "a", "c", "a")))
        .keyBy(w -> w)
        .count("count")
        .map("twice", (KeyValue<String, Long> kv) -> new KeyValue<>(kv.key(), 2 * kv.value()))
        .sink(SinkSpec.collecting("counts"));
    return b.build();
  }

  /** An ingest source "pushed" → sink. */
  private static Dataflow pushed() {
    DataflowBuilder b = Dataflow.builder("pushed").parallelism(2);
    b.source(SourceSpec.<String>ingest("pushed", 16)).sink(SinkSpec.discarding("out"));
    return b.build();
  }

  /**
   * A job whose dataflow has an operator {@code koala.cluster.scale-on-join} names is checked at
   * submission: the operator must head its tasks and be rescalable live (not an ingest source), or
   * the job is refused with one error naming the operator and the path.
   */
  @Test
  void scaleOnJoinRefusesAnOperatorThatCannotBeRescaled() {
    assertScaleOnJoinRefused(
        scaled(),
        "twice",
        "'twice' of job scaled",
        "it runs chained in the tasks of 'count'; name 'count'");
    assertScaleOnJoinRefused(
        pushed(),
        "pushed",
        "'pushed' of job pushed",
        "operator 'pushed' is a source whose splits cannot move");
  }

  private static void assertScaleOnJoinRefused(
      Dataflow dataflow, String operator, String names, String reason) {
    KoalaConfig config =
        KoalaConfig.load().withWorkers(1).with("koala.cluster.scale-on-join", List.of(operator));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      assertThatThrownBy(() -> runtime.submit(dataflow))
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith("koala.cluster.scale-on-join names operator " + names)
          .hasMessageContaining("which cannot be rescaled: " + reason)
          .hasNoCause();
    }
  }

  /** A name the dataflow lacks concerns other jobs; a keyed operator heading its tasks is fine. */
  @Test
  void scaleOnJoinAcceptsAKeyedOperatorAndANameTheDataflowLacks() {
    KoalaConfig config =
        KoalaConfig.load()
            .withWorkers(1)
            .with("koala.cluster.scale-on-join", List.of("count", "not-in-this-dataflow"));
    try (KoalaRuntime runtime = KoalaRuntime.embedded(config)) {
      JobHandle job = runtime.submit(scaled());
      assertThat(job.await(Duration.ofSeconds(30))).isEqualTo(JobStatus.FINISHED);
      Map<String, Long> last = new TreeMap<>();
      for (KeyValue<String, Long> kv : job.<KeyValue<String, Long>>collected("counts")) {
        last.merge(kv.key(), kv.value(), Math::max);
      }
      assertThat(last).isEqualTo(Map.of("a", 6L, "b", 2L, "c", 2L));
    }
  }

  @Test
  void mapSizesMustBeOrdered() {
    assertThatThrownBy(
            () ->
                KoalaConfig.load()
                    .with("koala.store.initial-map-size", "2 GiB")
                    .with("koala.store.max-map-size", "1 GiB"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.store.max-map-size");
  }

  @Test
  void remoteBackendRunsOnlyWithKoalasRoutingSwitch() {
    assertThatThrownBy(
            () ->
                KoalaConfig.load()
                    .with("koala.reconfiguration.protocol", "eager")
                    .with("koala.store.backend", "remote"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.reconfiguration.protocol")
        .hasMessageContaining("koala.store.backend");
    assertThat(KoalaConfig.load().with("koala.store.backend", "remote").remoteStateServices())
        .isEqualTo(2);
  }

  @Test
  void checkpointsNeedTheTasksOwnStores() {
    assertThatThrownBy(
            () ->
                KoalaConfig.load()
                    .with("koala.store.backend", "remote")
                    .with("koala.checkpoint.interval", "1 s"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.checkpoint.interval")
        .hasMessageContaining("koala.store.backend = \"remote\"")
        .hasMessageContaining("allowed with the remote backend: off");
  }

  @Test
  void checkpointSettings() {
    KoalaConfig off = KoalaConfig.load();
    assertThat(off.checkpointing()).isFalse();
    assertThat(off.checkpointsRetained()).isEqualTo(2);
    assertThat(off.maxRestarts()).isEqualTo(5);
    assertThat(off.restartBackoff()).isEqualTo(java.time.Duration.ofSeconds(1));
    assertThat(off.restartBackoffMax()).isEqualTo(java.time.Duration.ofMinutes(1));
    assertThat(off.restartsResetAfter()).isEqualTo(java.time.Duration.ofMinutes(10));
    assertThat(off.checkpointTimeout()).isEqualTo(java.time.Duration.ofMinutes(10));
    assertThat(off.failureRateInterval()).as("exponential delay").isNull();
    assertThat(
            off.with("koala.checkpoint.restart-strategy", "failure-rate")
                .with("koala.checkpoint.failure-rate-interval", "3 minutes")
                .failureRateInterval())
        .isEqualTo(java.time.Duration.ofMinutes(3));
    assertThatThrownBy(
            () ->
                off.with("koala.checkpoint.restart-strategy", "failure-rate")
                    .with("koala.checkpoint.failure-rate-interval", "0 s"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("koala.checkpoint.failure-rate-interval");
    assertThatThrownBy(() -> off.with("koala.checkpoint.restart-backoff-max", "500 ms"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("koala.checkpoint.restart-backoff-max")
        .hasMessageContaining("koala.checkpoint.restart-backoff = 1 s");
    assertThat(off.checkpointDirectory()).isNull();
    KoalaConfig on =
        off.withCheckpointInterval(java.time.Duration.ofMillis(100))
            .withCheckpointsRetained(3)
            .withMaxRestarts(1)
            .withRestartBackoff(java.time.Duration.ZERO);
    assertThat(on.checkpointing()).isTrue();
    assertThat(on.checkpointInterval()).isEqualTo(java.time.Duration.ofMillis(100));
    assertThat(on.checkpointsRetained()).isEqualTo(3);
    assertThat(on.maxRestarts()).isEqualTo(1);
    assertThat(on.withCheckpointInterval(null).checkpointing()).isFalse();
    assertThat(off.with("koala.checkpoint.interval", false).checkpointing()).isFalse();
  }

  @Test
  void defaultsAreValid() {
    KoalaConfig c = KoalaConfig.load();
    assertThat(c.workers()).isPositive();
    assertThat(c.render()).contains("workers");
    assertThat(c.serializationMaxDepth()).isEqualTo(TypeRegistry.DEFAULT_MAX_DEPTH);
    assertThat(c.remote().tlsEnabled()).isFalse();
    assertThat(c.remote().transport()).isEqualTo("tcp");
    assertThat(EngineSettings.of(c).channels().maxWaitingBytes())
        .as("reference.conf and the settings' own default agree")
        .isEqualTo(ChannelSettings.DEFAULT_MAX_WAITING_BYTES);
    assertThat(
            EngineSettings.of(c.with("koala.channel.max-waiting-bytes", "64 KiB"))
                .channels()
                .maxWaitingBytes())
        .isEqualTo(64 << 10);
    assertThat(EngineSettings.of(c).channels().hotWindowMillis())
        .isEqualTo(ChannelSettings.DEFAULT_HOT_WINDOW_MILLIS);
    assertThat(EngineSettings.of(c).channels().hotKeys())
        .isEqualTo(ChannelSettings.DEFAULT_HOT_KEYS);
    assertThat(
            EngineSettings.of(c.with("koala.reconfiguration.hot-set.window", "10 s"))
                .channels()
                .hotWindowMillis())
        .isEqualTo(10_000);
    assertThat(EngineSettings.of(c).channels().loadHalfLifeMillis())
        .as("reference.conf and the settings' own default agree")
        .isEqualTo(ChannelSettings.DEFAULT_LOAD_HALF_LIFE_MILLIS);
    assertThat(
            EngineSettings.of(c.with("koala.metrics.load-half-life", "3 s"))
                .channels()
                .loadHalfLifeMillis())
        .isEqualTo(3_000);
  }
}
