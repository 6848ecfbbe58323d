package io.koala.cluster;

import io.koala.KoalaException;
import io.koala.runtime.internal.NodeRuntime;
import io.koala.runtime.internal.NodeRuntime.ClusterJob;
import io.koala.runtime.internal.NodeRuntime.JobListing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.pekko.actor.Address;

/**
 * The cluster's job registry as a node sees it: the jobs coordinated on every node, found by asking
 * each node's directory (the directories find each other through the Receptionist). What {@link
 * KoalaCluster#attach} and the admin API of every node use, so that any node operates every job.
 */
final class ClusterJobs {
  /** How long a node's directory has to answer. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final NodeRuntime node;
  private final Predicate<Address> member;

  ClusterJobs(NodeRuntime node, Predicate<Address> member) {
    this.node = node;
    this.member = member;
  }

  /**
   * The jobs of the cluster now.
   *
   * @throws KoalaException when this node cannot ask the cluster (it is stopping)
   */
  JobListing list() {
    try {
      return node.clusterJobs(TIMEOUT, member)
          .toCompletableFuture()
          .get(2 * TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new KoalaException("cannot list the cluster's jobs: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KoalaException("interrupted while listing the cluster's jobs", e);
    }
  }

  /** No node coordinates the job asked for: the message names the jobs that run. */
  static final class NoSuchJob extends KoalaException {
    private static final long serialVersionUID = 1L;

    NoSuchJob(String jobId, JobListing listing) {
      super(
          "no job "
              + jobId
              + " is coordinated in the cluster; its jobs: "
              + listing.ids()
              + (listing.silent().isEmpty()
                  ? ""
                  : " (the nodes "
                      + listing.silent()
                      + " did not answer: their jobs are missing)"));
    }
  }

  /**
   * Job {@code jobId}: coordinated on this node, or found on another.
   *
   * @throws NoSuchJob when no node that answered coordinates it
   * @throws KoalaException when more than one node coordinates a job of that id (jobs coordinated
   *     where they were submitted, each submitted on its node), or the cluster cannot be asked
   */
  ClusterJob find(String jobId) {
    var here = node.core().hostedCoordinators().get(jobId);
    if (here != null) {
      return new ClusterJob(jobId, node.core().mainSystem().address().toString(), here);
    }
    JobListing listing = list();
    List<ClusterJob> found = listing.withId(jobId);
    if (found.isEmpty()) {
      throw new NoSuchJob(jobId, listing);
    }
    if (found.size() > 1) {
      throw new KoalaException(
          "job "
              + jobId
              + " is coordinated on more than one node ("
              + found.stream().map(ClusterJob::node).toList()
              + "): each was submitted on its node; cancel all but one");
    }
    return found.get(0);
  }
}
