package io.koala.bench.soak;

import com.typesafe.config.Config;
import io.koala.cluster.DataflowProvider;
import io.koala.dataflow.Dataflow;
import java.util.List;

/**
 * The {@link SoakWorkload} of a node whose file has {@value SoakWorkload#SETTINGS}, and nothing on
 * any other node: the node processes {@code koala experiment soak} starts have the benchmarks on
 * their class path, and so define it.
 */
public final class SoakNodeDataflows implements DataflowProvider {
  @Override
  public List<Dataflow> dataflows(Config nodeConfig) {
    return nodeConfig.hasPath(SoakWorkload.SETTINGS)
        ? List.of(SoakWorkload.from(nodeConfig).dataflow())
        : List.of();
  }
}
