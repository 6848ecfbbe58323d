package io.koala.keys;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exact, compact key set behind the lookup table's LOCAL fast path. */
class LocalKeySetTest {

  @Test
  void answersExactlyForKeysOfEveryLengthAndStaysCompact() {
    long seed = new Random().nextLong();
    System.out.println("LocalKeySetTest seed " + seed);
    Random random = new Random(seed);
    LocalKeySet set = new LocalKeySet();
    Set<ByteBuffer> model = new HashSet<>();
    long keyBytes = 0;
    for (int i = 0; i < 50_000; i++) {
      byte[] key = new byte[random.nextInt(300)];
      random.nextBytes(key);
      if (model.add(ByteBuffer.wrap(key))) {
        keyBytes += key.length;
      }
      set.add(key);
    }
    assertThat(set.size()).as("seed %d", seed).isEqualTo(model.size());
    for (ByteBuffer k : model) {
      assertThat(set.contains(k.array())).as("seed %d", seed).isTrue();
    }
    for (int i = 0; i < 50_000; i++) {
      byte[] key = new byte[random.nextInt(300)];
      random.nextBytes(key);
      assertThat(set.contains(key))
          .as("seed %d", seed)
          .isEqualTo(model.contains(ByteBuffer.wrap(key)));
    }
    // the design's budget for an exact entry: the key's bytes plus 16 B (DESIGN §5.3); the arena
    // grows by half, so allow its slack
    assertThat(set.bytes()).isLessThanOrEqualTo((long) ((keyBytes + 16L * set.size()) * 1.5));
  }

  @Test
  void keysThatDifferOnlyInTheirLastByteOrLengthAreDistinct() {
    LocalKeySet set = new LocalKeySet();
    set.add(new byte[] {1, 2, 3});
    assertThat(set.contains(new byte[] {1, 2, 4})).isFalse();
    assertThat(set.contains(new byte[] {1, 2})).isFalse();
    assertThat(set.contains(new byte[] {1, 2, 3, 0})).isFalse();
    assertThat(set.contains(new byte[0])).isFalse();
    set.add(new byte[0]);
    assertThat(set.contains(new byte[0])).isTrue();
    assertThat(set.contains(new byte[] {1, 2, 3})).isTrue();
  }
}
