package io.koala.protocol;

import java.util.List;

/**
 * First on a peer channel (DESIGN §6.1 step 2): a bucket's key-lookup-table part and its timers,
 * which the sender deleted. Every timer at or before the sender's last applied watermark has fired
 * there; the receiver gets exactly the later ones (W2). With {@code pullAtOnce} (the eager
 * protocol) the receiver pulls all of the bucket's state from the sender right away instead of
 * fetching each key on its first access. With the remote state backend, {@code writesBefore} holds
 * the sender's last write number to each state service, which the receiver's reads of the bucket
 * wait for (empty otherwise). {@code hotKeys} are the keys of the bucket the sender's records
 * touched lately, in the store's order (its hot set, keys without state): the receiver asks for
 * their state at once (issue 20 step 2); empty but with the Koala protocol.
 */
public record Handover(
    BucketHandover bucket,
    List<ShippedTimer> timers,
    boolean pullAtOnce,
    List<Long> writesBefore,
    List<byte[]> hotKeys)
    implements ChannelItem {
  public Handover {
    timers = List.copyOf(timers);
    writesBefore = List.copyOf(writesBefore);
    hotKeys = List.copyOf(hotKeys);
  }

  /**
   * A timer of a moved key: its timestamp, domain (1 event time, 2 processing time), key,
   * namespace.
   */
  public record ShippedTimer(long timestamp, byte domain, byte[] key, byte[] namespace)
      implements KoalaMessage {}
}
