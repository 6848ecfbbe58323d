package io.koala.dataflow;

import io.koala.plan.LogicalPlan;
import java.util.Objects;

/**
 * An immutable, validated dataflow definition, ready to be submitted to a runtime. Built with
 * {@link #builder(String)}:
 *
 * <pre>{@code
 * DataflowBuilder b = Dataflow.builder("word-count");
 * b.source(SourceSpec.collection("lines", List.of("a b", "b c")))
 *     .flatMap("split", (String line, Collector<String> out) -> {
 *       for (String w : line.split(" ")) out.collect(w);
 *     })
 *     .keyBy(w -> w)
 *     .count("count")
 *     .sink(SinkSpec.collecting("counts"));
 * Dataflow dataflow = b.build();
 * }</pre>
 */
public final class Dataflow {
  private final LogicalPlan plan;

  Dataflow(LogicalPlan plan) {
    this.plan = Objects.requireNonNull(plan);
  }

  /** Starts the definition of a dataflow named {@code name}. */
  public static DataflowBuilder builder(String name) {
    return new DataflowBuilder(name);
  }

  public String name() {
    return plan.name();
  }

  /** The validated logical plan. */
  public LogicalPlan plan() {
    return plan;
  }

  @Override
  public String toString() {
    return "Dataflow(" + plan.name() + ", " + plan.topologicalOrder().size() + " operators)";
  }
}
