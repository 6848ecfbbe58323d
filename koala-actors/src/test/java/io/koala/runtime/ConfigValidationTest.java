package io.koala.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void defaultsAreValid() {
    KoalaConfig c = KoalaConfig.load();
    assertThat(c.workers()).isPositive();
    assertThat(c.render()).contains("workers");
  }
}
