package io.koala.bench.upgrade;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the sink of both versions published, judged against a reference computation over the whole
 * input: each customer's totals must have been published once for each of its orders, with counts
 * 1..n, and its last totals must equal the reference's.
 *
 * @param outputEquivalent every customer's final count and sum equal the reference's, and no
 *     customer has output the reference has not
 * @param recordsLost counts in 1..n never published (an order whose effect is missing)
 * @param recordsDuplicated publications beyond one per count (an order applied twice, or published
 *     twice)
 * @param published totals published by the two versions together
 */
public record UpgradeVerdict(
    boolean outputEquivalent, long recordsLost, long recordsDuplicated, long published) {

  /** The reference: each customer's count and sum over the first {@code records} orders. */
  public static Map<Long, long[]> reference(long records, int customers) {
    Map<Long, long[]> out = new HashMap<>();
    for (long i = 0; i < records; i++) {
      OrderTotals.Order o = OrderTotals.order(i, customers);
      long[] t = out.computeIfAbsent(o.customer(), k -> new long[2]);
      t[0]++;
      t[1] += o.amount();
    }
    return out;
  }

  /** {@code published} judged against {@code reference} (customer → count, sum). */
  public static UpgradeVerdict of(List<OrderTotals.Total> published, Map<Long, long[]> reference) {
    Map<Long, Map<Long, Integer>> seen = new HashMap<>();
    Map<Long, OrderTotals.Total> last = new HashMap<>();
    for (OrderTotals.Total t : published) {
      seen.computeIfAbsent(t.customer(), k -> new HashMap<>()).merge(t.count(), 1, Integer::sum);
      last.merge(t.customer(), t, (a, b) -> a.count() >= b.count() ? a : b);
    }
    long lost = 0;
    long duplicated = 0;
    boolean equivalent = reference.keySet().containsAll(seen.keySet());
    for (Map.Entry<Long, long[]> e : reference.entrySet()) {
      long n = e.getValue()[0];
      Map<Long, Integer> counts = seen.getOrDefault(e.getKey(), Map.of());
      for (long c = 1; c <= n; c++) {
        int times = counts.getOrDefault(c, 0);
        if (times == 0) {
          lost++;
        } else {
          duplicated += times - 1;
        }
      }
      for (Map.Entry<Long, Integer> c : counts.entrySet()) {
        if (c.getKey() < 1 || c.getKey() > n) {
          duplicated += c.getValue(); // a count past the input's: some order was applied twice
        }
      }
      OrderTotals.Total t = last.get(e.getKey());
      equivalent &= t != null && t.count() == n && t.sum() == e.getValue()[1];
    }
    return new UpgradeVerdict(equivalent, lost, duplicated, published.size());
  }
}
