package io.koala.cluster;

import io.koala.protocol.QueryMessage;
import io.koala.runtime.internal.JobClient;
import io.koala.runtime.internal.StateQueryClient;
import io.koala.serialization.Codecs;
import io.koala.serialization.KryoSerde;
import io.koala.state.Codec;
import io.koala.task.state.KeyedStateBackend;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The node endpoint's state reads, {@code GET /jobs/<id>/state/<operator>/<state>?key=K}: one key's
 * state, read as {@code JobHandle.query} reads it (from wherever the key's state is, never going
 * backwards) and decoded with the types the operator declared the state with. {@code keyType} says
 * how to read {@code key}: {@code string} (default), {@code long} or {@code int}. Keeps one query
 * client per job read, for as long as its coordinator runs.
 */
final class StateReads implements AutoCloseable {
  /** A job's query client, and the job it was made for. */
  private record Client(JobClient job, StateQueryClient queries) {}

  private final Map<String, Client> clients = new HashMap<>(); // guarded by this

  /** The answer's body, or a failed stage; bad parameters throw IllegalArgumentException. */
  CompletionStage<Map<String, Object>> read(
      JobClient job, String operator, String state, Map<String, String> params) {
    String text = params.get("key");
    if (text == null) {
      throw new IllegalArgumentException("parameter key is missing");
    }
    Object key = key(text, params.getOrDefault("keyType", "string"));
    return client(job)
        .read(
            operator,
            state,
            QueryMessage.Kind.DECLARED,
            new QueryMessage.Types(key.getClass().getName(), null, null),
            key,
            (serde, found) -> {
              Map<String, Object> body = new LinkedHashMap<>();
              body.put("job", job.jobId());
              body.put("operator", operator);
              body.put("state", state);
              body.put("key", key);
              body.put("kind", found.declared().kind());
              body.put("found", !found.values().isEmpty());
              body.put("value", decode(found, serde, operator, state));
              return body;
            });
  }

  private static Object key(String text, String type) {
    try {
      return switch (type) {
        case "string" -> text;
        case "long" -> Long.parseLong(text);
        case "int" -> Integer.parseInt(text);
        default ->
            throw new IllegalArgumentException(
                "parameter keyType is " + type + "; allowed: string, long, int");
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("parameter key is " + text + ", not a " + type);
    }
  }

  private static Object decode(
      QueryMessage.Found found, KryoSerde serde, String operator, String state) {
    QueryMessage.Declared d = found.declared();
    if (d.valueType() == null) {
      throw new IllegalArgumentException(
          "state '"
              + state
              + "' of operator '"
              + operator
              + "' is declared with a codec: read it from the service with StateQuery.value(..,"
              + " codec)");
    }
    Codec<?> values = Codecs.forClass(type(d.valueType()), serde);
    return switch (d.kind()) {
      case KeyedStateBackend.VALUE -> StateQueryClient.value(found, values).orElse(null);
      case KeyedStateBackend.LIST -> StateQueryClient.list(found, values);
      default -> StateQueryClient.map(found, serde, values);
    };
  }

  private static Class<?> type(String name) {
    try {
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      return Class.forName(
          name, false, loader == null ? StateReads.class.getClassLoader() : loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("class " + name + " of the state is not on this node");
    }
  }

  /**
   * The query client of {@code job}: the one made for it before, unless its job has another
   * coordinator now (a job of the same id run again, or elsewhere).
   */
  private synchronized StateQueryClient client(JobClient job) {
    Client c = clients.get(job.jobId());
    if (c == null || !c.job().coordinator().equals(job.coordinator())) {
      forget(job.jobId());
      c = new Client(job, StateQueryClient.start(job));
      clients.put(job.jobId(), c);
    }
    return c.queries();
  }

  /** Closes the query client of job {@code jobId}, which no node coordinates now. */
  synchronized void forget(String jobId) {
    Client c = clients.remove(jobId);
    if (c != null) {
      c.queries().close("job " + jobId + " is no longer coordinated in the cluster");
    }
  }

  @Override
  public synchronized void close() {
    clients.values().forEach(c -> c.queries().close("the node endpoint has stopped"));
    clients.clear();
  }
}
