package io.koala.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Key bytes decide buckets and name state: they must be typed, stable and reversible. */
class KeyEncoderTest {

  record CompositeKey(String tenant, long id) {}

  private static KeyEncoder encoder(Class<?>... types) {
    TypeRegistry registry = TypeRegistry.withDefaults();
    registry.register(types);
    return new KeyEncoder(new KryoSerde(registry));
  }

  @Test
  void typeTagsKeepEqualLookingKeysOfDifferentTypesApart() {
    KeyEncoder keys = encoder();
    byte[] asLong = keys.encode(5L);
    byte[] asInt = keys.encode(5);
    byte[] asString = keys.encode("5");
    byte[] asBytes = keys.encode(new byte[] {5});
    assertThat(asLong).isNotEqualTo(asInt).isNotEqualTo(asString).isNotEqualTo(asBytes);
    assertThat(asInt).isNotEqualTo(asString).isNotEqualTo(asBytes);
    assertThat(asString).isNotEqualTo(asBytes);
    assertThat(List.of(asLong[0], asInt[0], asString[0], asBytes[0])).doesNotHaveDuplicates();
  }

  @Test
  void fixedFormsAreBigEndianAfterTheTag() {
    KeyEncoder keys = encoder();
    assertThat(keys.encode(0x0102030405060708L)).containsExactly(2, 1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(keys.encode(0x01020304)).containsExactly(3, 1, 2, 3, 4);
    assertThat(keys.encode("hé")).containsExactly(1, 'h', 0xC3 - 256, 0xA9 - 256);
    assertThat(keys.encode(new byte[] {9, 8})).containsExactly(4, 9, 8);
  }

  @Test
  void decodeInvertsEncodeForEverySupportedType() {
    KeyEncoder keys = encoder(CompositeKey.class);
    List<Object> samples =
        List.of(
            0L,
            -1L,
            Long.MIN_VALUE,
            Long.MAX_VALUE,
            0,
            -1,
            Integer.MIN_VALUE,
            Integer.MAX_VALUE,
            "",
            "word",
            "ünïcødé ✓",
            new CompositeKey("t", 42),
            UUID.fromString("00000000-0000-0001-0000-000000000002"),
            'x',
            (short) 7,
            2.5d);
    for (Object key : samples) {
      Object back = keys.decode(keys.encode(key));
      assertThat(back).as("%s (%s)", key, key.getClass().getSimpleName()).isEqualTo(key);
      assertThat(back).hasSameClassAs(key);
    }
    assertThat((byte[]) keys.decode(keys.encode(new byte[] {1, 2, 3}))).containsExactly(1, 2, 3);
    assertThat((byte[]) keys.decode(keys.encode(new byte[0]))).isEmpty();
  }

  @Test
  void encodingIsDeterministicAcrossEncoders() {
    CompositeKey k = new CompositeKey("tenant", 7);
    assertThat(encoder(CompositeKey.class).encode(k))
        .isEqualTo(encoder(CompositeKey.class).encode(k));
    assertThat(encoder().encode("abc")).isEqualTo("\u0001abc".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aNullKeyIsRejected() {
    assertThatThrownBy(() -> encoder().encode(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
  }

  @Test
  void anUnregisteredKeyClassNamesTheFix() {
    assertThatThrownBy(() -> encoder().encode(new CompositeKey("t", 1)))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(CompositeKey.class.getName())
        .hasMessageContaining("registerTypes");
  }

  @Test
  void anUnknownTagIsRejected() {
    assertThatThrownBy(() -> encoder().decode(new byte[] {99, 1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("99");
  }
}
