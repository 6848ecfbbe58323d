package io.koala.task;

import io.koala.function.KeySelector;
import io.koala.protocol.TaskSetup.OutputSpec;
import io.koala.routing.Buckets;
import io.koala.routing.KeyBytes;
import io.koala.routing.RoutingTable;

/**
 * Chooses, for each emitted record, the output channel of one edge; a keyed edge encodes the key
 * with the task's {@link KeyBytes} (its key encoder).
 */
public abstract class Router {

  /** The position (in the task's output list) of the channel the record goes to. */
  public abstract int route(Object value);

  public static Router of(
      OutputSpec spec,
      int[] positions,
      KeySelector<Object, Object> selector,
      String consumer,
      int buckets,
      KeyBytes keys) {
    switch (spec.partitioning()) {
      case FORWARD -> {
        if (positions.length != 1) {
          throw new IllegalArgumentException("a forward edge has exactly one channel");
        }
        int pos = positions[0];
        return new Router() {
          @Override
          public int route(Object value) {
            return pos;
          }
        };
      }
      case REBALANCE -> {
        return new Router() {
          private int next;

          @Override
          public int route(Object value) {
            int pos = positions[next];
            next = next + 1 == positions.length ? 0 : next + 1;
            return pos;
          }
        };
      }
      case KEYED -> {
        RoutingTable table =
            RoutingTable.of(spec.routing().stream().mapToInt(Integer::intValue).toArray());
        if (table.buckets() != buckets) {
          throw new IllegalArgumentException(
              "routing table has " + table.buckets() + " buckets, the job " + buckets);
        }
        // task indices are logical and never reused: map each owner to its channel's position
        int maxIndex = spec.targets().stream().mapToInt(t -> t.index()).max().orElse(-1);
        int[] positionOf = new int[maxIndex + 1];
        java.util.Arrays.fill(positionOf, -1);
        for (int i = 0; i < positions.length; i++) {
          positionOf[spec.targets().get(i).index()] = positions[i];
        }
        for (int b = 0; b < buckets; b++) {
          int owner = table.owner(b);
          if (owner >= positionOf.length || positionOf[owner] < 0) {
            throw new IllegalArgumentException(
                "bucket " + b + " is routed to task " + owner + ", which has no channel");
          }
        }
        return new Router() {
          @Override
          public int route(Object value) {
            Object key = KeySelection.keyOf(selector, value, consumer);
            byte[] bytes = KeySelection.storable(keys.encode(key), key, consumer);
            return positionOf[table.owner(Buckets.bucketOf(bytes, buckets))];
          }
        };
      }
      default -> throw new IllegalStateException("unhandled partitioning " + spec.partitioning());
    }
  }
}
