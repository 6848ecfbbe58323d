package io.koala.samples.cluster;

import com.typesafe.config.Config;
import io.koala.cluster.DataflowProvider;
import io.koala.dataflow.Dataflow;
import java.util.List;

/**
 * The {@link ClusterWorkload} of a node whose file has {@code koala.node.workload}, and nothing on
 * any other node: {@code koala node} finds it on its class path as it finds the providers of the
 * jars it is given, so a node with the samples on its class path (as {@code ./koala experiment
 * cluster} starts them) defines the experiment's workload, and a node without them does not.
 */
public final class NodeWorkload implements DataflowProvider {
  @Override
  public List<Dataflow> dataflows(Config nodeConfig) {
    return nodeConfig.hasPath(ClusterWorkload.SETTINGS)
        ? List.of(ClusterWorkload.from(nodeConfig).dataflow())
        : List.of();
  }
}
