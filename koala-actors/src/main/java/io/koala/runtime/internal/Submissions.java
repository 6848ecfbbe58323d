package io.koala.runtime.internal;

import io.koala.KoalaException;
import io.koala.coordinator.WorkerPool;
import io.koala.runtime.ConfigurationException;
import io.koala.runtime.SubmitOptions;

/** What a submission to a runtime is named and checked for before anything of it starts. */
final class Submissions {
  private Submissions() {}

  /**
   * The id of a job submitted with {@code options}: on a node its dataflow's name ({@code nodeId});
   * embedded, the id the options ask for, else {@code <name>-<submissions + 1>}.
   *
   * @throws ConfigurationException when a node is asked for another id
   */
  static String jobId(
      boolean node, String nodeId, String name, SubmitOptions options, int submissions) {
    if (node) {
      if (options.jobId().isPresent() && !options.jobId().get().equals(nodeId)) {
        throw new ConfigurationException(
            "job id '"
                + options.jobId().get()
                + "' asked for: on a node of a cluster a job's id is its dataflow's name, '"
                + nodeId
                + "'");
      }
      return nodeId;
    }
    return options.jobId().orElse(name + "-" + (submissions + 1));
  }

  /**
   * Checks that some worker of {@code pool} can take tasks of job {@code jobId}.
   *
   * @throws KoalaException saying why none can
   */
  static void checkPlaceable(String jobId, WorkerPool pool) {
    if (pool == null || pool.placeable().isEmpty()) {
      throw new KoalaException(
          "cannot run job "
              + jobId
              + ": "
              + (pool == null
                  ? "no worker has joined yet"
                  : pool.exhausted()
                      ? "every worker of this runtime is lost " + pool.lost()
                      : "no worker can take tasks (lost "
                          + pool.lost()
                          + ", leaving "
                          + pool.leaving()
                          + ")"));
    }
  }
}
