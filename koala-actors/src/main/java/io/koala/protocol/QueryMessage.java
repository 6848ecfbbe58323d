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
   * Client → task: read state {@code state} (of {@code kind}) of the key with bytes {@code key} in
   * bucket {@code bucket}; answer {@code replyTo} (an address the task's host sends to) with {@code
   * id}.
   */
  record Read(long id, String state, Kind kind, int bucket, byte[] key, Object replyTo)
      implements QueryMessage {}

  /** The kind of state a query reads: it must be the kind the operator declared. */
  enum Kind {
    VALUE,
    LIST,
    MAP
  }

  /**
   * Owner task → the state server of task {@code holder}: answer {@code read} from the holder's
   * store; the owner's lookup table names {@code holder} for the key.
   */
  record HolderRead(Read read, int owner, int holder) implements QueryMessage {}

  /** What a client receives. */
  sealed interface Answer extends QueryMessage {
    long id();
  }

  /**
   * The key's entries of the state: for value and list state one entry with an empty namespace
   * (none when the key has no such state), for map state one per map key (its encoded key as the
   * namespace). {@code servedBy} is the task whose store was read; {@code byHolder} says that it
   * was a holder the owner named, not the owner itself.
   */
  record Found(
      long id, int servedBy, boolean byHolder, List<byte[]> namespaces, List<byte[]> values)
      implements Answer {}

  /**
   * Task {@code task} does not process the bucket now; {@code handedTo} is the task it handed the
   * bucket over to in the running reconfiguration, or -1.
   */
  record NotHere(long id, int task, int handedTo) implements Answer {}

  /** The query cannot be answered, and asking again will not help: {@code error} says why. */
  record Refused(long id, String error) implements Answer {}
}
