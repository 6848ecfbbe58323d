package io.koala.samples.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The push-ingestion sample: orders pushed from four threads end up in the service's totals. */
class OrderTotalsServiceTest {

  @Test
  void ordersPushedFromSeveralThreadsEndUpInTheTotals(@TempDir Path dir) throws Exception {
    int n = 20_000;
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < n; i++) {
      expected.merge("customer-" + i % 50, 100L + i % 7, Long::sum);
    }
    OrderTotalsService service = new OrderTotalsService(dir);
    OrderTotalsService.placeOrders(service, n, 50, 4);
    service.close();
    expected.forEach(
        (customer, cents) -> assertThat(service.total(customer)).as(customer).isEqualTo(cents));
  }
}
