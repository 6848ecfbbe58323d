package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.koala.connector.Json;
import io.koala.job.BucketLoads;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import io.koala.job.LatencyHistogram;
import io.koala.job.StatePlaneStats;
import io.koala.job.TaskMetricsSnapshot;
import io.koala.plan.OperatorId;
import io.koala.plan.TaskId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON of {@code GET /jobs/<id>/load}, without a node. */
class NodeEndpointLoadTest {

  static TaskMetricsSnapshot task(String operator, int index, BucketLoads buckets) {
    return new TaskMetricsSnapshot(
        new TaskId(new OperatorId(operator), index),
        "RUNNING",
        0,
        0,
        0,
        0,
        0,
        LatencyHistogram.EMPTY,
        0,
        0,
        0,
        0,
        false,
        Long.MIN_VALUE,
        0,
        TaskMetricsSnapshot.Reconfiguration.NONE,
        StatePlaneStats.NONE,
        List.of(),
        2_500_000_000L,
        0.5,
        400,
        buckets);
  }

  @Test
  void everyOperatorWithTasksHasItsTotalsTasksAndBuckets() throws Exception {
    TaskMetricsSnapshot source = task("words", 0, BucketLoads.NONE);
    TaskMetricsSnapshot count =
        task(
            "count",
            0,
            new BucketLoads(
                2, new int[] {0, 1}, new double[] {300, 100}, new double[] {0.375, 0.125}));
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            1_000,
            List.of(source, count),
            List.of(),
            Map.of(source.task(), 0, count.task(), 0),
            0,
            CheckpointStats.NONE,
            null);
    JsonNode json = new ObjectMapper().readTree(Json.encode(NodeEndpoint.loads(m)));
    assertThat(json.get("id").asText()).isEqualTo("orders");
    assertThat(json.get("operators").size()).isEqualTo(2);
    JsonNode c = json.get("operators").get("count");
    assertThat(c.get("recordsPerSecond").asDouble()).isEqualTo(400);
    assertThat(c.get("busyFraction").asDouble()).isEqualTo(0.5);
    assertThat(c.get("processingRate").asDouble()).isEqualTo(800);
    assertThat(c.get("tasks").get(0).get("task").asText()).isEqualTo("count#0");
    assertThat(c.get("tasks").get(0).get("busySeconds").asDouble()).isEqualTo(2.5);
    assertThat(c.get("bucketRecordsPerSecond").toString()).isEqualTo("[300.0,100.0]");
    assertThat(c.get("bucketBusyFraction").toString()).isEqualTo("[0.375,0.125]");
    assertThat(c.get("bucketOwners").toString()).isEqualTo("[0,0]");
    JsonNode w = json.get("operators").get("words");
    assertThat(w.get("bucketOwners").size()).as("a source has no buckets").isZero();
    assertThat(w.get("tasks").size()).isEqualTo(1);
  }
}
