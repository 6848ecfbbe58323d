package io.koala.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The commit markers of an exactly-once {@link KafkaSink}: every transaction of sink task {@code i}
 * also writes one record to partition {@code i} of the marker topic, key {@code <sink>-<i>}, value
 * {@code <run>:<checkpoint>}, so that the records and the marker of a checkpoint are committed (or
 * aborted) together. A restored writer reads its partition, committed records only, to learn the
 * last checkpoint of its run whose transaction was committed.
 *
 * <p>One partition per task, because a read_committed reader sees a partition only up to its first
 * open transaction: once task {@code i} has fenced every producer of its pool, nothing is open on
 * its partition, and the read is complete. Were tasks to share a partition, another task's
 * transaction still open from before a crash could hide a committed marker, and a checkpoint would
 * be published twice. The topic is compacted (one live record per key), so it stays small.
 */
final class MarkerTopic {
  private final String topic;
  private final String sinkDescription;
  private final Duration timeout;

  MarkerTopic(String topic, String sinkDescription, Duration timeout) {
    this.topic = topic;
    this.sinkDescription = sinkDescription;
    this.timeout = timeout;
  }

  String name() {
    return topic;
  }

  /** The key of task {@code task}'s markers. */
  static String key(String sink, int task) {
    return sink + "-" + task;
  }

  /** The marker record of checkpoint {@code checkpointId}. */
  ProducerRecord<byte[], byte[]> marker(String sink, int task, UUID run, long checkpointId) {
    return new ProducerRecord<>(
        topic,
        task,
        key(sink, task).getBytes(StandardCharsets.UTF_8),
        (run + ":" + checkpointId).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Makes sure the topic exists with at least {@code partitions} partitions: creates it (compacted)
   * or adds partitions; several tasks may race to do so.
   */
  void ensure(Admin admin, int partitions) {
    try {
      int existing = partitionsOf(admin);
      if (existing < 0) {
        NewTopic t =
            new NewTopic(topic, Optional.of(partitions), Optional.empty()) // default replication
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try {
          admin.createTopics(List.of(t)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
        existing = partitionsOf(admin);
      }
      if (existing >= 0 && existing < partitions) {
        try {
          admin
              .createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions)))
              .all()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof InvalidPartitionsException)) { // another task grew it
            throw e;
          }
        }
      }
      awaitPartitions(admin, partitions);
    } catch (ExecutionException e) {
      throw new KafkaSinkException(
          sinkDescription
              + ": cannot create or grow its marker topic '"
              + topic
              + "' to "
              + partitions
              + " partitions (create it, compacted, with at least as many partitions as the"
              + " sink has tasks, or allow this client to): "
              + e.getCause(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new KafkaSinkException(
          sinkDescription + ": no answer within " + timeout + " about marker topic '" + topic + "'",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaSinkException(sinkDescription + ": interrupted", e);
    }
  }

  /** The topic's number of partitions, or -1 when it does not exist. */
  private int partitionsOf(Admin admin)
      throws ExecutionException, InterruptedException, TimeoutException {
    try {
      TopicDescription d =
          admin
              .describeTopics(Set.of(topic))
              .allTopicNames()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .get(topic);
      return d.partitions().size();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return -1;
      }
      throw e;
    }
  }

  /** Waits until every partition up to {@code partitions} has a leader (new ones take a moment). */
  private void awaitPartitions(Admin admin, int partitions)
      throws ExecutionException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      TopicDescription d =
          admin
              .describeTopics(Set.of(topic))
              .allTopicNames()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .get(topic);
      long led =
          d.partitions().stream().filter(p -> p.leader() != null && !p.leader().isEmpty()).count();
      if (d.partitions().size() >= partitions && led >= partitions) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("marker topic partitions without a leader");
      }
      // the broker's metadata: nothing to wait on but its next answer
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  /**
   * The highest checkpoint of run {@code run} whose marker task {@code task} committed, or 0 when
   * none. Call it only when no transaction of the task is open (after fencing its pool).
   */
  long lastCommitted(Map<String, Object> consumerConfig, String sink, int task, UUID run) {
    Map<String, Object> c = new java.util.HashMap<>(consumerConfig);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    String key = key(sink, task);
    String prefix = run + ":";
    TopicPartition tp = new TopicPartition(topic, task);
    long last = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), timeout).get(tp); // the last stable offset
      long deadline = System.nanoTime() + timeout.toNanos();
      while (consumer.position(tp, timeout) < end) {
        if (System.nanoTime() > deadline) {
          throw new KafkaSinkException(
              sinkDescription
                  + ": could not read partition "
                  + task
                  + " of marker topic '"
                  + topic
                  + "' to offset "
                  + end
                  + " within "
                  + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() == null || r.value() == null) {
            continue;
          }
          String value = new String(r.value(), StandardCharsets.UTF_8);
          if (key.equals(new String(r.key(), StandardCharsets.UTF_8)) && value.startsWith(prefix)) {
            last = Math.max(last, Long.parseLong(value.substring(prefix.length())));
          }
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new KafkaSinkException(
          sinkDescription + ": cannot read marker topic '" + topic + "': " + e, e);
    }
    return last;
  }
}
