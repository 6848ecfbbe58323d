package io.koala.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Murmur3} against the published MurmurHash3_x86_32 test vectors and against an independent
 * re-implementation of the reference algorithm. The hash names state on disk, so it must never
 * change.
 */
class Murmur3Test {

  @Test
  void emptyInputWithSeedZeroHashesToZero() {
    assertThat(Murmur3.hash32(new byte[0])).isZero();
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource({
    "hello, 248bfa47",
    "The quick brown fox jumps over the lazy dog, 2e4ff723",
  })
  void wellKnownStringsWithSeedZero(String text, String expectedHex) {
    int expected = Integer.parseUnsignedInt(expectedHex, 16);
    assertThat(Murmur3.hash32(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
  }

  /** Vectors from SMHasher's verification set as commonly published; tails of 0 to 3 bytes. */
  @ParameterizedTest(name = "[{0}] seed {1} -> {2}")
  @CsvSource({
    "'', 00000000, 00000000",
    "'', 00000001, 514e28b7",
    "'', ffffffff, 81f16f39",
    "00000000, 00000000, 2362f9de",
    "21436587, 00000000, f55b516b",
    "21436587, 5082edee, 2362f9de",
    "214365, 00000000, 7e4a8634",
    "2143, 00000000, a0f7b07a",
    "21, 00000000, 72661cf4",
    "000000, 00000000, 85f0b427",
    "0000, 00000000, 30f4c306",
    "00, 00000000, 514e28b7",
  })
  void publishedByteVectors(String hexBytes, String seedHex, String expectedHex) {
    byte[] data = hex(hexBytes);
    int seed = Integer.parseUnsignedInt(seedHex, 16);
    int expected = Integer.parseUnsignedInt(expectedHex, 16);
    assertThat(Murmur3.hash32(data, 0, data.length, seed)).isEqualTo(expected);
    assertThat(reference(data, seed)).as("reference implementation").isEqualTo(expected);
  }

  /** Vectors for seed 0x9747b28c: one string per tail length, and a longer one. */
  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource({
    "a, 7fa09ea6",
    "ab, 74875592",
    "abc, c84a62dd",
    "abcd, f0478627",
    "aa, 5d211726",
    "aaa, 283e0130",
    "aaaa, 5a97808a",
    "'Hello, world!', 24884cba",
  })
  void publishedStringVectorsWithSeed(String text, String expectedHex) {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    int seed = 0x9747b28c;
    assertThat(Murmur3.hash32(data, 0, data.length, seed))
        .isEqualTo(Integer.parseUnsignedInt(expectedHex, 16));
  }

  @Test
  void everyTailLengthMatchesTheReferenceIncludingHighBytes() {
    long seed = 0x5EED_0001L;
    Random random = new Random(seed);
    for (int length = 0; length <= 67; length++) {
      for (int round = 0; round < 20; round++) {
        byte[] data = new byte[length];
        random.nextBytes(data);
        int hashSeed = round == 0 ? 0 : random.nextInt();
        assertThat(Murmur3.hash32(data, 0, length, hashSeed))
            .as("seed %d, length %d (tail %d), round %d", seed, length, length & 3, round)
            .isEqualTo(reference(data, hashSeed));
      }
    }
  }

  @Test
  void seedZeroOverloadEqualsTheFullForm() {
    byte[] data = "koala".getBytes(StandardCharsets.UTF_8);
    assertThat(Murmur3.hash32(data)).isEqualTo(Murmur3.hash32(data, 0, data.length, 0));
  }

  @Test
  void hashesOnlyTheGivenSliceOfTheArray() {
    Random random = new Random(42);
    for (int length = 0; length <= 9; length++) {
      byte[] slice = new byte[length];
      random.nextBytes(slice);
      byte[] padded = new byte[length + 7];
      random.nextBytes(padded);
      System.arraycopy(slice, 0, padded, 3, length);
      assertThat(Murmur3.hash32(padded, 3, length, 0))
          .as("length %d", length)
          .isEqualTo(Murmur3.hash32(slice));
    }
  }

  /**
   * MurmurHash3_x86_32 written from Appleby's reference code, independently of {@link Murmur3}:
   * unsigned 32-bit arithmetic in longs, little-endian blocks read by a ByteBuffer.
   */
  static int reference(byte[] data, int seed) {
    final long mask = 0xFFFF_FFFFL;
    final long c1 = 0xcc9e2d51L;
    final long c2 = 0x1b873593L;
    ByteBuffer buf = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    int blocks = data.length / 4;
    long h1 = seed & mask;
    for (int i = 0; i < blocks; i++) {
      long k1 = buf.getInt(i * 4) & mask;
      k1 = (k1 * c1) & mask;
      k1 = rotl32(k1, 15);
      k1 = (k1 * c2) & mask;
      h1 ^= k1;
      h1 = rotl32(h1, 13);
      h1 = (h1 * 5 + 0xe6546b64L) & mask;
    }
    int tail = blocks * 4;
    int remaining = data.length & 3;
    if (remaining > 0) {
      long k1 = 0;
      for (int i = remaining - 1; i >= 0; i--) {
        k1 = (k1 << 8) | (data[tail + i] & 0xFF);
      }
      k1 = (k1 * c1) & mask;
      k1 = rotl32(k1, 15);
      k1 = (k1 * c2) & mask;
      h1 ^= k1;
    }
    h1 ^= data.length;
    h1 ^= h1 >>> 16;
    h1 = (h1 * 0x85ebca6bL) & mask;
    h1 ^= h1 >>> 13;
    h1 = (h1 * 0xc2b2ae35L) & mask;
    h1 ^= h1 >>> 16;
    return (int) h1;
  }

  private static long rotl32(long x, int r) {
    return ((x << r) | (x >>> (32 - r))) & 0xFFFF_FFFFL;
  }

  private static byte[] hex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }
}
