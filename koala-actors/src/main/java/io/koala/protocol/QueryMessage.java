package io.koala.protocol;

import java.util.List;

/**
 * Interactive state queries (docs/decisions.md, "State queries during live moves"): a service's
 * query client asks the task that owns a key's bucket for one state of the key; the owner answers
 * from its store, or, when the key's state is still at a holder after a reconfiguration moved the
 * bucket, has that holder's state server answer. A task that does not own the bucket says so, with
 * the task it handed the bucket to when it knows one, and the client asks again.
 *
 * <p>Only the task that processes a bucket's records decides where a key's state is, so a sequence
 * of reads of one key never goes backwards: the owner's answer is its latest, and a holder's copy
 * is the latest there is while the owner's lookup table still names that holder.
 */
public sealed interface QueryMessage extends KoalaMessage {

  /**
   * Client → task: read state {@code state} (of {@code kind}, with {@code types}) of the key with
   * bytes {@code key} in bucket {@code bucket}; answer {@code replyTo} (an address the task's host
   * sends to) with {@code id}.
   */
  record Read(long id, String state, Kind kind, Types types, int bucket, byte[] key, Object replyTo)
      implements QueryMessage {}

  /**
   * The classes a query reads with, checked against the operator's declarations (a read with other
   * classes would decode the bytes as the wrong class, or look a key up under bytes it was never
   * stored under): of the operator's keys, of the state's values (a list's elements, a map's
   * values), and of a map state's keys; each null where the query does not say (a value read with a
   * codec, a read of whatever was declared, or a key class the operator did not declare).
   */
  record Types(String key, String value, String mapKey) {
    /** A query that says nothing of its classes. */
    public static final Types ANY = new Types(null, null, null);
  }

  /**
   * The kind of state a query reads: it must be the kind the operator declared; {@code DECLARED}
   * reads any kind and has the answer say which, with the types it was declared with.
   */
  enum Kind {
    VALUE,
    LIST,
    MAP,
    DECLARED
  }

  /**
   * How the operator declared a state: {@code kind} ("value", "list" or "map"), the class of its
   * values (of a list's elements, of a map's values), null when declared with a codec, and of a
   * map's keys.
   */
  record Declared(String kind, String valueType, String mapKeyType) {}

  /**
   * Owner task → the state server of task {@code holder}: answer {@code read} from the holder's
   * store; the owner's lookup table names {@code holder} for the key.
   */
  record HolderRead(Read read, int owner, int holder, Declared declared) implements QueryMessage {}

  /**
   * Client → task: the state {@code state} (of {@code kind}, read with {@code types}) of the keys
   * of {@code bucket} after the key with bytes {@code after} ({@code null}: from the first), in
   * store order (key length, then bytes), at most {@code limit} keys; answer {@code replyTo} with a
   * {@link Page}.
   */
  record Scan(
      long id,
      String state,
      Kind kind,
      Types types,
      int bucket,
      byte[] after,
      int limit,
      Object replyTo)
      implements QueryMessage {}

  /**
   * Owner task → the state server of task {@code holder}: the keys of the scan's bucket in the
   * holder's store, whichever the owner resolves to it; answered to the owner with {@link
   * HolderScanned}.
   */
  record HolderScan(Scan scan, int owner, int holder) implements QueryMessage {}

  /**
   * Holder → owner: what {@code holder} has of scan {@code id}: {@code keys} in store order; {@code
   * more}: it has further keys after the last of them.
   */
  record HolderScanned(long id, int holder, List<KeyEntries> keys, boolean more)
      implements QueryMessage {}

  /** A key's entries of one state: as in {@link Found}. */
  record KeyEntries(byte[] key, List<byte[]> namespaces, List<byte[]> values) {}

  /** What a client receives. */
  sealed interface Answer extends QueryMessage {
    long id();
  }

  /**
   * The key's entries of the state: for value and list state one entry with an empty namespace
   * (none when the key has no such state), for map state one per map key (its encoded key as the
   * namespace). {@code servedBy} is the task whose store was read; {@code byHolder} says that it
   * was a holder the owner named, not the owner itself. {@code declared}: how the state was
   * declared, for a {@link Kind#DECLARED} read (else null).
   */
  record Found(
      long id,
      int servedBy,
      boolean byHolder,
      List<byte[]> namespaces,
      List<byte[]> values,
      Declared declared)
      implements Answer {}

  /**
   * A page of a {@link Scan}, answered by the bucket's owner {@code servedBy}: the keys that have
   * the state, in store order, each with its entries as the owner or the holder it names has them;
   * the scan goes on after the key with bytes {@code next}, or the bucket is done ({@code null}).
   */
  record Page(long id, int servedBy, List<KeyEntries> keys, byte[] next) implements Answer {}

  /**
   * Task {@code task} does not process the bucket now; {@code handedTo} is the task it handed the
   * bucket over to in the running reconfiguration, or -1.
   */
  record NotHere(long id, int task, int handedTo) implements Answer {}

  /** The query cannot be answered, and asking again will not help: {@code error} says why. */
  record Refused(long id, String error) implements Answer {}
}
