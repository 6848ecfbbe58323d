package io.koala.cli;

import io.koala.runtime.ConfigurationException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code koala admin --url http://HOST:PORT <action>}: the admin API of a node's HTTP endpoint
 * ({@code koala.node.http}, docs/operations.md) from the command line. Prints the node's answer
 * (JSON, or Prometheus text for {@code metrics}); exits 0 on success, 1 when the node refused (its
 * error on stderr), 2 when it cannot be reached.
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    description =
        "Operates the jobs of a Koala cluster through a node's HTTP endpoint (any node reaches"
            + " every job).",
    subcommands = {
      AdminCommand.Jobs.class,
      AdminCommand.Job.class,
      AdminCommand.Load.class,
      AdminCommand.Autoscaler.class,
      AdminCommand.State.class,
      AdminCommand.Rescale.class,
      AdminCommand.Rebalance.class,
      AdminCommand.Migrate.class,
      AdminCommand.Checkpoint.class,
      AdminCommand.Savepoint.class,
      AdminCommand.Cancel.class,
      AdminCommand.Get.class
    })
final class AdminCommand {

  @Option(
      names = "--url",
      defaultValue = "http://127.0.0.1:8558",
      description = "The node's endpoint (koala.node.http); default ${DEFAULT-VALUE}.")
  String url;

  @Option(
      names = "--token",
      defaultValue = "${env:KOALA_ADMIN_TOKEN}",
      description = "koala.node.http.admin-token, for actions (default: $KOALA_ADMIN_TOKEN).")
  String token;

  @Spec CommandSpec spec;

  /** Sends {@code method path} to the node and prints its answer; the exit code. */
  int call(String method, String path) {
    URI uri;
    try {
      uri = URI.create(url.replaceAll("/+$", "") + path);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException("--url " + url + " is not a URL: " + e.getMessage());
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofMinutes(11)) // beyond the node's longest wait
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (token != null && !token.isEmpty()) {
      request.header("Authorization", "Bearer " + token);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    HttpResponse<String> response;
    try {
      response =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(10))
              .build()
              .send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      err.println("koala: cannot reach " + uri + ": " + e);
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 2;
    }
    if (response.statusCode() / 100 == 2) {
      out.print(response.body());
      out.flush();
      return 0;
    }
    err.print("koala: " + response.statusCode() + " " + response.body());
    err.flush();
    return 1;
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** Shared by the actions: the parent's connection. */
  abstract static class Action implements Callable<Integer> {
    @ParentCommand AdminCommand admin;
  }

  @Command(
      name = "jobs",
      description = "Lists the cluster's jobs, each with the node that coordinates it.")
  static final class Jobs extends Action {
    @Override
    public Integer call() {
      return admin.call("GET", "/jobs");
    }
  }

  @Command(
      name = "job",
      description =
          "Shows a job: its tasks and their placement, the running reconfiguration (progress, ETA),"
              + " the completed ones, checkpoints.")
  static final class Job extends Action {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Override
    public Integer call() {
      return admin.call("GET", "/jobs/" + enc(id));
    }
  }

  @Command(
      name = "load",
      description =
          "Shows each operator's load from the runtime's decayed counters: records per second and"
              + " busy fraction of its live tasks, and of each bucket of a keyed operator.")
  static final class Load extends Action {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Override
    public Integer call() {
      return admin.call("GET", "/jobs/" + enc(id) + "/load");
    }
  }

  @Command(
      name = "autoscaler",
      description =
          "Shows what the autoscaler (koala.autoscaler) last found for each operator and its"
              + " latest decisions, with their reasons and outcomes.")
  static final class Autoscaler extends Action {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Override
    public Integer call() {
      return admin.call("GET", "/jobs/" + enc(id) + "/autoscaler");
    }
  }

  @Command(
      name = "state",
      description =
          "Prints one key's state of a keyed operator, read from wherever it is while the job"
              + " runs.")
  static final class State extends Action {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Parameters(index = "1", description = "The keyed operator.")
    String operator;

    @Parameters(index = "2", description = "The name the operator declared the state with.")
    String state;

    @Parameters(index = "3", description = "The key.")
    String key;

    @Option(
        names = "--key-type",
        defaultValue = "string",
        description = "How to read the key: string, long or int (default ${DEFAULT-VALUE}).")
    String keyType;

    @Override
    public Integer call() {
      return admin.call(
          "GET",
          "/jobs/"
              + enc(id)
              + "/state/"
              + enc(operator)
              + "/"
              + enc(state)
              + "?key="
              + enc(key)
              + "&keyType="
              + enc(keyType));
    }
  }

  /** Actions that may wait for their outcome. */
  abstract static class Waiting extends Action {
    @Option(
        names = "--wait",
        description = "Seconds to wait for the outcome (the node's default when not given).")
    Integer wait;

    String waitParam(String sep) {
      return wait == null ? "" : sep + "wait=" + wait;
    }
  }

  @Command(name = "rescale", description = "Runs an operator with a new number of tasks, live.")
  static final class Rescale extends Waiting {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Parameters(index = "1", description = "The keyed operator.")
    String operator;

    @Parameters(index = "2", description = "Its new number of tasks.")
    int parallelism;

    @Override
    public Integer call() {
      return admin.call(
          "POST",
          "/jobs/"
              + enc(id)
              + "/rescale?operator="
              + enc(operator)
              + "&parallelism="
              + parallelism
              + waitParam("&"));
    }
  }

  @Command(
      name = "rebalance",
      description = "Moves an operator's buckets between its tasks (evenly, or as --buckets says).")
  static final class Rebalance extends Waiting {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Parameters(index = "1", description = "The keyed operator.")
    String operator;

    @Option(
        names = "--buckets",
        description = "The task index of each bucket, comma-separated (default: even).")
    String buckets;

    @Override
    public Integer call() {
      return admin.call(
          "POST",
          "/jobs/"
              + enc(id)
              + "/rebalance?operator="
              + enc(operator)
              + (buckets == null ? "" : "&buckets=" + enc(buckets))
              + waitParam("&"));
    }
  }

  @Command(name = "migrate", description = "Moves one task of an operator to another worker.")
  static final class Migrate extends Waiting {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Parameters(index = "1", description = "The keyed operator.")
    String operator;

    @Parameters(index = "2", description = "The task's index.")
    int task;

    @Parameters(index = "3", description = "The worker to move it to (see `job`).")
    int worker;

    @Override
    public Integer call() {
      return admin.call(
          "POST",
          "/jobs/"
              + enc(id)
              + "/migrate?operator="
              + enc(operator)
              + "&task="
              + task
              + "&worker="
              + worker
              + waitParam("&"));
    }
  }

  @Command(name = "checkpoint", description = "Takes a checkpoint now; prints its id.")
  static final class Checkpoint extends Waiting {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Override
    public Integer call() {
      return admin.call("POST", "/jobs/" + enc(id) + "/checkpoint" + waitParam("?"));
    }
  }

  @Command(
      name = "savepoint",
      description =
          "Takes a savepoint into DIR (a new or empty directory the coordinating node writes; a"
              + " relative one is resolved here); with --stop, stops the job with it. Prints the"
              + " directory and the checkpoint id.")
  static final class Savepoint extends Waiting {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Parameters(index = "1", description = "The savepoint's directory.")
    Path dir;

    @Option(
        names = "--stop",
        description = "Stop the job with the savepoint (its sources stop at its barrier).")
    boolean stop;

    @Override
    public Integer call() {
      return admin.call(
          "POST",
          "/jobs/"
              + enc(id)
              + "/savepoint?dir="
              + enc(dir.toAbsolutePath().normalize().toString())
              + (stop ? "&stop=true" : "")
              + waitParam("&"));
    }
  }

  @Command(name = "cancel", description = "Cancels a job.")
  static final class Cancel extends Action {
    @Parameters(index = "0", description = "The job's id.")
    String id;

    @Override
    public Integer call() {
      return admin.call("POST", "/jobs/" + enc(id) + "/cancel");
    }
  }

  @Command(name = "get", description = "Prints the node's metrics, health or readiness.")
  static final class Get extends Action {
    @Parameters(index = "0", description = "metrics, health or ready.")
    String what;

    @Override
    public Integer call() {
      if (!what.equals("metrics") && !what.equals("health") && !what.equals("ready")) {
        throw new ConfigurationException(
            "koala admin get " + what + ": allowed: metrics, health, ready");
      }
      return admin.call("GET", "/" + what);
    }
  }
}
