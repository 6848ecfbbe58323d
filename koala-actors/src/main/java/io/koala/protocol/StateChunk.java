package io.koala.protocol;

import java.util.List;

/**
 * Stop-and-restart (DESIGN §7): part of a moved bucket's state, pushed by its old owner on the peer
 * channel ahead of the bucket's {@link Handover}: store keys and values, installed as they come.
 * The old owner has deleted them.
 */
public record StateChunk(int bucket, List<byte[]> keys, List<byte[]> values)
    implements ChannelItem {
  public StateChunk {
    keys = List.copyOf(keys);
    values = List.copyOf(values);
    if (keys.size() != values.size()) {
      throw new IllegalArgumentException("one value per store key");
    }
  }
}
