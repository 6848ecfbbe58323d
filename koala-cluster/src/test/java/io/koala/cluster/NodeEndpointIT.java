package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import io.koala.dataflow.Dataflow;
import io.koala.job.JobStatus;
import io.koala.runtime.JobHandle;
import io.koala.runtime.StateQuery;
import io.koala.runtime.SubmitOptions;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's HTTP endpoint, as an operator uses it: scrape {@code /metrics}, probe {@code /health}
 * and {@code /ready}, list the jobs, rescale one through the admin API (with the admin token) of a
 * node other than the one coordinating it, attach a handle to it from that node, and see the
 * reconfiguration in the metrics and the job's history, and take a savepoint. The job's output
 * still equals the reference run.
 */
class NodeEndpointIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String TOKEN = "a-token-of-some-length";
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void anOperatorScrapesRescalesThroughTheAdminApiAndSeesTheReconfiguration(@TempDir Path dir)
      throws Exception {
    Dataflow dataflow = KoalaClusterIT.dataflow(3_000, 2);
    try (LocalCluster nodes =
        LocalCluster.start(
            2,
            dir,
            ConfigFactory.parseString(
                "koala.node.http.port = 0\nkoala.node.http.admin-token = \""
                    + TOKEN
                    + "\"\nkoala.checkpoint.interval = 1 h\n"), // checkpoints: those asked for
            dataflow)) {
      KoalaCluster a = nodes.node(0);
      String base = "http://127.0.0.1:" + a.httpPort();
      assertThat(get(base + "/health").statusCode()).isEqualTo(200);
      LocalCluster.await("ready", WAIT, () -> get(base + "/ready").statusCode() == 200);

      JobHandle job = a.submit(dataflow);
      LocalCluster.await("running", WAIT, () -> job.status() == JobStatus.RUNNING);

      // the other node sees and operates the job coordinated on the first: its admin API, and a
      // handle attached by id
      KoalaCluster b = nodes.node(1);
      String other = "http://127.0.0.1:" + b.httpPort();
      HttpResponse<String> listed = get(other + "/jobs");
      assertThat(listed.body())
          .as("the second node's list")
          .contains("\"id\":\"clustered\"")
          .contains("\"node\":\"" + a.system().address() + "\"");
      assertThat(listed.headers().firstValue(NodeEndpoint.SILENT_NODES)).isEmpty();
      assertThat(get(other + "/jobs/clustered").body())
          .contains("\"task\":\"count#1\"")
          .contains("\"coordinator\":\"" + a.system().address() + "\"")
          .as("no node of its own numbering for a job coordinated elsewhere")
          .contains("\"node\":null")
          .doesNotContain("\"node\":\"pekko");
      assertThat(get(base + "/jobs/clustered").body())
          .as("the coordinator's node names the workers' nodes")
          .contains("\"node\":\"pekko")
          .doesNotContain("\"node\":null");
      assertThat(get(other + "/jobs/clustered/state/count/accumulator?key=7&keyType=long"))
          .satisfies(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200))
          .satisfies(r -> assertThat(r.body()).contains("\"key\":7"));
      assertThat(get(other + "/jobs/nothing").body())
          .contains("no job nothing is coordinated in the cluster; its jobs: [clustered]");
      JobHandle attached = b.attach("clustered");
      assertThat(attached.metrics().jobId()).isEqualTo("clustered");
      assertThat(
              attached
                  .query(StateQuery.value("count", "accumulator", Long.class, Long.class), 7L)
                  .toCompletableFuture()
                  .get())
          .isPresent();
      assertThatThrownBy(() -> b.submit(dataflow))
          .hasMessageContaining(
              "job clustered runs already, coordinated on node " + a.system().address());
      assertThatThrownBy(() -> b.attach("nothing"))
          .hasMessageContaining("no job nothing is coordinated in the cluster");
      assertThat(b.jobs()).containsExactly("clustered");
      String before = get(base + "/metrics").body();
      assertThat(value(before, "koala_job_reconfigurations_total", "job=\"clustered\""))
          .isEqualTo(0);
      assertThat(value(before, "koala_job_reconfiguration_active", "job=\"clustered\""))
          .isEqualTo(0);
      assertThat(before).contains("koala_task_records_in_total{").contains("task=\"count#1\"");
      assertThat(before)
          .contains("koala_node_remoting_drops_total 0.0")
          .contains("jvm_memory_used");
      assertThat(before).containsPattern("(?m)^koala_node_workers 2\\.0$");
      assertThat(get(base + "/jobs").body()).contains("\"id\":\"clustered\"");

      // through the second node's admin API
      String rescale = other + "/jobs/clustered/rescale?operator=count&parallelism=3&wait=60";
      assertThat(post(rescale, null).statusCode()).as("without the token").isEqualTo(401);
      HttpResponse<String> done = post(rescale, TOKEN);
      assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
      assertThat(done.body()).contains("\"kind\":\"rescale\"").contains("\"operator\":\"count\"");

      // a savepoint through the second node's admin API, written by the coordinating node
      Path savepoint = dir.resolve("savepoints").resolve("clustered").resolve("sp-1");
      String take =
          other
              + "/jobs/clustered/savepoint?dir="
              + URLEncoder.encode(savepoint.toString(), StandardCharsets.UTF_8)
              + "&wait=60";
      HttpResponse<String> saved = post(take, TOKEN);
      assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
      assertThat(saved.body())
          .contains("sp-1\"")
          .containsPattern("\"checkpoint\":[1-9]")
          .contains("\"stopped\":false");
      assertThat(savepoint.resolve("_metadata")).exists();
      HttpResponse<String> again = post(take, TOKEN);
      assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
      assertThat(again.body()).contains("exists and is not empty");
      assertThat(post(other + "/jobs/clustered/savepoint", TOKEN).body())
          .contains("parameter dir is missing");

      String after = get(base + "/metrics").body();
      assertThat(value(after, "koala_job_reconfigurations_total", "job=\"clustered\""))
          .isEqualTo(1);
      assertThat(
              value(after, "koala_job_reconfiguration_last_duration_seconds", "job=\"clustered\""))
          .isPositive();
      assertThat(after).contains("task=\"count#2\"");
      assertThat(value(after, "koala_task_batch_latency_seconds_count", "task=\"count#0\""))
          .as("the batch latency is a histogram")
          .isPositive();
      assertThat(after).contains("koala_task_batch_latency_seconds_bucket{");
      String described = get(base + "/jobs/clustered").body();
      assertThat(described).contains("\"task\":\"count#2\"").contains("\"kind\":\"rescale\"");

      HttpResponse<String> count =
          get(base + "/jobs/clustered/state/count/accumulator?key=5&keyType=long");
      assertThat(count.statusCode()).as(count.body()).isEqualTo(200);
      Matcher n = Pattern.compile("\"value\":(\\d+)").matcher(count.body());
      assertThat(n.find()).as(count.body()).isTrue();
      long total =
          KoalaClusterIT.reference(2).get(5L).stream().mapToLong(Long::longValue).max().orElse(0);
      assertThat(Long.parseLong(n.group(1))).isBetween(1L, total);
      assertThat(count.body()).contains("\"kind\":\"value\"").contains("\"key\":5");
      assertThat(get(base + "/jobs/clustered/state/count/nothing?key=5&keyType=long"))
          .satisfies(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(404))
          .satisfies(r -> assertThat(r.body()).contains("its states: accumulator"));
      assertThat(get(base + "/jobs/clustered/state/count/accumulator?key=x&keyType=long").body())
          .contains("parameter key is x, not a long");

      HttpResponse<String> refused =
          post(base + "/jobs/clustered/rescale?operator=nothing&parallelism=2", TOKEN);
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      assertThat(refused.body()).contains("nothing");
      assertThat(post(base + "/jobs/other/checkpoint", TOKEN).statusCode()).isEqualTo(404);
      assertThat(post(base + "/jobs/clustered/rescale?operator=count", TOKEN).body())
          .contains("parameter parallelism is missing");

      assertThat(job.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      assertThat(attached.await(WAIT))
          .as("the attached handle follows the job")
          .isEqualTo(JobStatus.FINISHED);
      assertThat(KoalaClusterIT.outputs(job)).isEqualTo(KoalaClusterIT.reference(2));

      // the savepoint starts the job again, coordinated on the other node: from where it was
      JobHandle resumed = b.submit(dataflow, SubmitOptions.restoreFrom(savepoint));
      assertThat(resumed.await(WAIT)).isEqualTo(JobStatus.FINISHED);
      Map<Long, List<Long>> whole = KoalaClusterIT.reference(2);
      Map<Long, List<Long>> tail = KoalaClusterIT.outputs(resumed);
      tail.forEach(
          (key, counts) ->
              assertThat(whole.get(key)).as("key %d", key).endsWith(counts.toArray(Long[]::new)));
      assertThat(tail.values().stream().mapToInt(List::size).sum())
          .as("counts from the savepoint on, not from the start")
          .isPositive()
          .isLessThan(whole.values().stream().mapToInt(List::size).sum());
    }
  }

  /** The value of the series {@code name} whose labels contain {@code label}. */
  private static double value(String scrape, String name, String label) {
    Matcher m =
        Pattern.compile(
                "(?m)^"
                    + Pattern.quote(name)
                    + "\\{[^}]*"
                    + Pattern.quote(label)
                    + "[^}]*} (\\S+)$")
            .matcher(scrape);
    assertThat(m.find()).as("%s{%s} in\n%s", name, label, scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private HttpResponse<String> get(String url) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET().build());
  }

  private HttpResponse<String> post(String url, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return send(b.build());
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
