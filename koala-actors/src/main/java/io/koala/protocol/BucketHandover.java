package io.koala.protocol;

import io.koala.keys.MembershipFilter;
import java.util.List;

/**
 * What a sender ships to a receiver about one moved bucket (DESIGN §5.3, step 2 of §6.1): the
 * default holder of its untouched keys with their membership filter, the drain cursor if the
 * default holder is being drained, and the exact entries of the keys touched since the bucket first
 * moved. Task indices name holders; the receiver resolves every key in one hop from this.
 *
 * @param defaultHolder task index holding the keys without an entry
 * @param filter membership filter of the keys at the default holder ({@link
 *     MembershipFilter#toBytes})
 * @param drainCursor the last key drained from the default holder, or {@code null}
 * @param drained whether the default holder has been drained to the end
 */
public record BucketHandover(
    int bucket,
    int defaultHolder,
    byte[] filter,
    byte[] drainCursor,
    boolean drained,
    List<Entry> entries) {

  public BucketHandover {
    entries = List.copyOf(entries);
  }

  /**
   * Where one key's state is: at task {@code holder}, or nowhere ({@code absent}: deleted, so the
   * receiver's stale copy, if any, must not come back).
   */
  public record Entry(byte[] key, int holder, boolean absent) {}
}
