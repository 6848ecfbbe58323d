package io.koala.keys;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hot set a sender ships with a bucket's hand-over (issue 20 step 2). */
class RecentKeysTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private static byte[] key(String s) {
    return s.getBytes(UTF_8);
  }

  private static List<String> strings(List<byte[]> keys) {
    return keys.stream().map(k -> new String(k, UTF_8)).toList();
  }

  @Test
  void aBucketsHotSetIsItsKeysOfTheLastTwoWindowsInStoreOrderEachOnce() {
    RecentKeys recent = new RecentKeys(4, 10 * SECOND, 1_000, 0);
    recent.touch(1, key("old"), 0); // falls out two windows later
    recent.touch(1, key("bb"), 11 * SECOND); // a new window: "old" is in the previous one
    recent.touch(1, key("a"), 12 * SECOND);
    recent.touch(1, key("ab"), 12 * SECOND);
    recent.touch(2, key("other bucket"), 12 * SECOND);
    recent.touch(1, key("ba"), 22 * SECOND); // another window: "old" is dropped
    recent.touch(1, key("bb"), 23 * SECOND);

    // shorter keys first, then by unsigned bytes: the order of KeyLayout's store keys
    assertThat(strings(recent.take(1, 1_000, 23 * SECOND))).containsExactly("a", "ab", "ba", "bb");
    assertThat(recent.take(1, 1_000, 23 * SECOND)).as("taking forgets the bucket").isEmpty();
    assertThat(strings(recent.take(2, 1_000, 23 * SECOND))).containsExactly("other bucket");

    recent.touch(3, key("quiet since"), 23 * SECOND);
    assertThat(recent.take(3, 1_000, 43 * SECOND))
        .as("nothing touched for two windows: no hot set")
        .isEmpty();
  }

  @Test
  void aFullGenerationTurnsOverSoTheSetStaysBounded() {
    RecentKeys recent = new RecentKeys(1, 10 * SECOND, 4, 0);
    for (int i = 0; i < 10; i++) {
      recent.touch(0, key("k" + i), SECOND);
    }
    // generations of 2 keys: the last full one and the current one, 4 keys at most
    assertThat(strings(recent.take(0, 1_000, SECOND))).containsExactly("k6", "k7", "k8", "k9");
  }

  @Test
  void theHotSetStopsAtItsByteLimitAndTrackingCanBeOff() {
    RecentKeys recent = new RecentKeys(1, 10 * SECOND, 100, 0);
    for (String k : List.of("aa", "bb", "cc", "dd")) {
      recent.touch(0, key(k), SECOND);
    }
    assertThat(strings(recent.take(0, 5, SECOND))).containsExactly("aa", "bb");

    RecentKeys off = new RecentKeys(1, 0, 100, 0);
    off.touch(0, key("aa"), SECOND);
    assertThat(off.enabled()).isFalse();
    assertThat(off.take(0, 1_000, 23 * SECOND)).isEmpty();
  }
}
