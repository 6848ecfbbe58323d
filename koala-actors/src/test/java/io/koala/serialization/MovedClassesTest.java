package io.koala.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import io.koala.window.TimeWindow;
import io.koala.window.WindowResult;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What was written before {@code TimeWindow} and {@code WindowResult} moved from {@code
 * io.koala.function} to {@code io.koala.window} still reads: the bytes below were written by commit
 * 55a7f85 (the last with the former names) through {@code
 * KryoSerde(TypeRegistry.withDefaults()).toBytes}.
 */
class MovedClassesTest {
  private final KryoSerde serde = new KryoSerde(TypeRegistry.withDefaults());

  @Test
  void aSessionWindowsListWrittenUnderTheFormerNameReads() {
    // new ArrayList<>(List.of(new TimeWindow(10, 20), new TimeWindow(30, 45)))
    byte[] stored = HexFormat.of().parseHex("b782f00383d0f9d9060028145a3c");
    assertThat(serde.fromBytes(stored))
        .isEqualTo(List.of(new TimeWindow(10, 20), new TimeWindow(30, 45)));
  }

  @Test
  void aWindowResultWrittenUnderTheFormerNameReads() {
    // new WindowResult<>("k", 0L, 60L, 7L)
    byte[] stored = HexFormat.of().parseHex("b2eaf9027803826b00090e");
    assertThat(serde.fromBytes(stored)).isEqualTo(new WindowResult<>("k", 0L, 60L, 7L));
  }

  @Test
  void aFieldRecordedUnderTheFormerNameIsReadableAsTheCurrentOne() {
    assertThat(
            StateClassLayout.readableAs(
                "java.util.List<io.koala.function.TimeWindow>",
                "java.util.List<io.koala.window.TimeWindow>"))
        .isTrue();
    assertThat(
            StateClassLayout.readableAs(
                "io.koala.function.TimeWindowed", "io.koala.window.TimeWindowed"))
        .as("another class whose name only starts like it")
        .isFalse();
  }
}
