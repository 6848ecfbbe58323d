package io.koala.samples.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample service over HTTP: orders posted go into the running job, each customer's total is
 * read from the job's keyed state (also while the job rescales), and the service's own registry
 * exports Koala's meters, the batch latency as a histogram.
 */
class OrderHttpServiceTest {
  private static final int CUSTOMERS = 10;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void ordersPostedAreTotalledReadFromTheJobsStateAndMetered(@TempDir Path dir) throws Exception {
    try (OrderHttpService service = new OrderHttpService(dir, 0)) {
      String base = "http://127.0.0.1:" + service.port();
      long[] expected = new long[CUSTOMERS];
      for (int i = 0; i < 300; i++) {
        int c = i % CUSTOMERS;
        long cents = 100 + i % 7;
        expected[c] += cents;
        HttpResponse<String> r =
            send(post(base + "/orders?customer=customer-" + c + "&cents=" + cents));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(r.body()).isEqualTo("{\"order\":" + (i + 1) + "}");
        if (i == 150) {
          service.job().rescale("totals", 3); // reads go on while it moves the buckets
        }
      }
      for (int c = 0; c < CUSTOMERS; c++) {
        String want = "{\"customer\":\"customer-" + c + "\",\"cents\":" + expected[c] + "}";
        String url = base + "/totals/customer-" + c;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String body = send(get(url)).body();
        while (!body.equals(want) && System.nanoTime() < deadline) {
          LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
          body = send(get(url)).body();
        }
        assertThat(body).isEqualTo(want);
      }
      assertThat(send(get(base + "/totals/nobody")).statusCode()).isEqualTo(404);
      assertThat(send(post(base + "/orders?customer=x&cents=many")).statusCode()).isEqualTo(400);

      String metrics = send(get(base + "/metrics")).body();
      assertThat(metrics)
          .contains("koala_task_records_in_total{")
          .contains("job=\"order-totals-1\"")
          .contains("koala_task_batch_latency_seconds_bucket{");
    }
  }

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).GET().build();
  }

  private static HttpRequest post(String url) {
    return HttpRequest.newBuilder(URI.create(url))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
