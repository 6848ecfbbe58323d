package io.koala.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.koala.connector.Json;
import io.koala.job.AutoscalerDecision;
import io.koala.job.AutoscalerEvaluation;
import io.koala.job.AutoscalerStatus;
import io.koala.job.CheckpointStats;
import io.koala.job.JobMetrics;
import io.koala.job.JobStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON of {@code GET /jobs/<id>/autoscaler}, without a node. */
class NodeEndpointAutoscalerTest {

  @Test
  void listsTheEvaluationsAndDecisionsWithTheirReasons() throws Exception {
    AutoscalerStatus status =
        new AutoscalerStatus(
            true,
            List.of(
                new AutoscalerEvaluation(
                    9_000, "words", 1, 800, 800, Double.NaN, Double.NaN, 1, "not rescalable live"),
                new AutoscalerEvaluation(
                    9_000, "count", 2, 600, 900, 300, 1.5, 4, "target 900 records/s ...")),
            List.of(
                new AutoscalerDecision(
                    9_000,
                    "count",
                    AutoscalerDecision.Kind.SCALE_OUT,
                    2,
                    4,
                    "target 900 records/s ...",
                    "completed in 840 ms")),
            1,
            0,
            0);
    JobMetrics m =
        new JobMetrics(
            "orders",
            JobStatus.RUNNING,
            10_000,
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null,
            status);
    JsonNode json = new ObjectMapper().readTree(Json.encode(NodeEndpoint.autoscaler(m)));
    assertThat(json.get("enabled").asBoolean()).isTrue();
    assertThat(json.get("scaleOuts").asLong()).isEqualTo(1);
    assertThat(json.get("evaluations").size()).isEqualTo(2);
    assertThat(json.get("evaluations").get(0).get("trueRatePerTask").asText()).isEqualTo("NaN");
    JsonNode count = json.get("evaluations").get(1);
    assertThat(count.get("operator").asText()).isEqualTo("count");
    assertThat(count.get("wanted").asInt()).isEqualTo(4);
    JsonNode d = json.get("decisions").get(0);
    assertThat(d.get("kind").asText()).isEqualTo("SCALE_OUT");
    assertThat(d.get("from").asInt()).isEqualTo(2);
    assertThat(d.get("to").asInt()).isEqualTo(4);
    assertThat(d.get("reason").asText()).startsWith("target 900");
    assertThat(d.get("outcome").asText()).isEqualTo("completed in 840 ms");

    JobMetrics off =
        new JobMetrics(
            "plain",
            JobStatus.RUNNING,
            10_000,
            List.of(),
            List.of(),
            Map.of(),
            0,
            CheckpointStats.NONE,
            null);
    JsonNode none = new ObjectMapper().readTree(Json.encode(NodeEndpoint.autoscaler(off)));
    assertThat(none.get("enabled").asBoolean()).isFalse();
    assertThat(none.get("decisions").size()).isZero();
  }
}
