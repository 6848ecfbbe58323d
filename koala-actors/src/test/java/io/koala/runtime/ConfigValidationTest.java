package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.serialization.TypeRegistry;
import java.util.List;
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
        "koala.workers | many | expected an integer",
        "koala.worker-systems | both | allowed: \"shared\", \"separate\"",
        "koala.batch.max-records | 0 | allowed: [1, 1000000]",
        "koala.batch.max-bytes | 12 | allowed: [1024, 262144] bytes",
        "koala.batch.max-bytes | 1 MiB | allowed: [1024, 262144] bytes",
        "koala.batch.max-bytes | lots | expected a size",
        "koala.batch.linger | -1 ms | allowed: [PT0S, PT10S]",
        "koala.batch.linger | soon | expected a duration",
        "koala.channel.credits | 0 | allowed: [1, 1024]",
        "koala.watermark.interval | 0 ms | allowed: [PT0.001S, PT1M]",
        "koala.delete-job-state | maybe | expected on/off",
        "koala.deploy-timeout | 0 s | allowed: [PT0.001S, PT1H]",
        "koala.reconfiguration.step-timeout | 2 h | allowed: [PT0.001S, PT1H]",
        "koala.reconfiguration.drain.piggyback-keys | -1 | allowed: [0, 100000]",
        "koala.reconfiguration.drain.idle-chunk-keys | all | expected an integer",
        "koala.reconfiguration.drain.interval | 0 ms | allowed: [PT0.001S, PT1M]",
        "koala.reconfiguration.protocol | drrs | allowed: [\"koala\", \"stop-restart\", \"eager\", \"fluid\"]",
        "koala.reconfiguration.buckets-per-step | 0 | allowed: [1, ",
        "koala.store.backend | rocksdb | allowed: \"lmdb\", \"remote\"",
        "koala.store.remote-services | 0 | allowed: [1, 64]",
        "koala.checkpoint.interval | often | expected off, or a duration",
        "koala.checkpoint.interval | 0 ms | allowed: off, or [PT0.001S, PT24H]",
        "koala.checkpoint.retained | 0 | allowed: [1, 1000]",
        "koala.checkpoint.max-restarts | -1 | allowed: [0, 1000000]",
        "koala.checkpoint.restart-backoff | -1 s | allowed: [PT0S, PT10M]",
        "koala.checkpoint.restart-backoff | later | expected a duration",
        "koala.checkpoint.redeploy-timeout | 0 s | allowed: [PT0.001S, PT1H]",
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
  }
}
