package io.koala.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.state.Codec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** State value codecs: fixed forms for JDK types, Kryo for registered classes. */
class CodecsTest {
  record Reading(String sensor, double value) {}

  record Unregistered(int x) {}

  private final KryoSerde serde = serdeWith(Reading.class);

  private static KryoSerde serdeWith(Class<?>... types) {
    TypeRegistry r = TypeRegistry.withDefaults();
    r.register(types);
    return new KryoSerde(r);
  }

  private <T> T roundTrip(Class<T> type, T value) {
    Codec<T> codec = Codecs.forClass(type, serde);
    return codec.decode(codec.encode(value));
  }

  @Test
  void fixedFormsRoundTrip() {
    assertThat(roundTrip(Long.class, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
    assertThat(roundTrip(Integer.class, -12345)).isEqualTo(-12345);
    assertThat(roundTrip(Double.class, Math.PI)).isEqualTo(Math.PI);
    assertThat(roundTrip(Double.class, Double.NaN)).isNaN();
    assertThat(roundTrip(String.class, "grüß")).isEqualTo("grüß");
    assertThat(roundTrip(Boolean.class, true)).isTrue();
    assertThat(roundTrip(Boolean.class, false)).isFalse();
    assertThat(roundTrip(byte[].class, new byte[] {1, 2})).containsExactly(1, 2);
  }

  @Test
  void fixedFormsHaveTheDocumentedWidth() {
    assertThat(Codecs.forClass(Long.class, serde).encode(1L)).hasSize(8);
    assertThat(Codecs.forClass(long.class, serde).encode(1L))
        .containsExactly(0, 0, 0, 0, 0, 0, 0, 1);
    assertThat(Codecs.forClass(Integer.class, serde).encode(1)).containsExactly(0, 0, 0, 1);
    assertThat(Codecs.forClass(Double.class, serde).encode(1.0)).hasSize(8);
  }

  @Test
  void bytesCodecDoesNotAliasTheCallersArray() {
    byte[] value = {1, 2, 3};
    byte[] encoded = Codecs.forClass(byte[].class, serde).encode(value);
    value[0] = 9;
    assertThat(encoded).containsExactly(1, 2, 3);
  }

  @Test
  void registeredClassesUseKryo() {
    assertThat(roundTrip(Reading.class, new Reading("s1", 0.5))).isEqualTo(new Reading("s1", 0.5));
  }

  @Test
  void objectCodecWritesTheClassSoAnyRegisteredValueRoundTrips() {
    Codec<Object> any = Codecs.forClass(Object.class, serde);
    for (Object v : List.of(new Reading("a", 1), 5L, "s", List.of(1, 2))) {
      assertThat(any.decode(any.encode(v))).isEqualTo(v);
    }
  }

  @Test
  void anUnregisteredClassIsRejectedWhenTheCodecIsMade() {
    assertThatThrownBy(() -> Codecs.forClass(Unregistered.class, serde))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(Unregistered.class.getName())
        .hasMessageContaining("registerTypes");
  }
}
