package io.koala.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.koala.kafka.testing.EmbeddedKafka;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.PreparedTxnState;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.internals.TransactionManager;
import org.apache.kafka.clients.producer.internals.TransactionalRequestResult;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What KIP-939 (two-phase commit of a Kafka transaction with an external coordinator) gives an
 * exactly-once sink with kafka-clients 4.3.1 against a 4.3.1 broker that allows it ({@code
 * transaction.two.phase.commit.enable=true}). The findings decide the design of the Kafka sink:
 *
 * <ol>
 *   <li>The public 2PC API is <b>not</b> in the 4.3.1 client: {@code KafkaProducer} has no {@code
 *       prepareTransaction()}, no {@code initTransactions(boolean keepPreparedTxn)} and no {@code
 *       completeTransaction(PreparedTxnState)}. They were added in trunk (KAFKA-19082) and removed
 *       again from the 4.1, 4.2, 4.3 and 4.4 release branches "until KIP-939 is ready"
 *       (KAFKA-19414). What remains public: the class {@code PreparedTxnState} (producer id and
 *       epoch, serialized as {@code "id:epoch"}) and the producer setting {@code
 *       transaction.two.phase.commit.enable}, which only forbids {@code transaction.timeout.ms}.
 *   <li>The wire protocol is not stable either: InitProducerId version 6, the one with {@code
 *       Enable2Pc} and {@code KeepPreparedTxn}, is marked "latest version unstable", so neither a
 *       production broker ({@code unstable.api.versions.enable=false}) offers it nor does the
 *       client use it.
 *   <li>The client's internal plumbing ({@code TransactionManager.prepareTransaction()}, {@code
 *       initializeTransactions(true)}, {@code isPrepared()}) is still there but inert: the
 *       InitProducerId request it builds never sets {@code Enable2Pc} or {@code KeepPreparedTxn},
 *       so a successor's "keep the prepared transaction" aborts it like a plain {@code
 *       initTransactions()} (shown below through reflection, for the record only).
 *   <li>So, with 4.3.1, a transaction open when its producer dies is aborted by the next producer
 *       of its {@code transactional.id} (its {@code initTransactions()}), or by the coordinator
 *       after {@code transaction.timeout.ms}; the zombie is fenced; read_committed consumers see
 *       nothing of it and are not blocked afterwards. A sink cannot keep a pre-committed
 *       transaction across a crash with public API: committing after a checkpoint needs either the
 *       Flink-style "resume by producer id and epoch" (reflection into the client's internals) or a
 *       design that accepts replays (idempotent keys downstream), until a client ships KIP-939.
 * </ol>
 */
class TwoPhaseCommitSpikeTest {
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() {
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void theClientHasNoPublicTwoPhaseCommitApi() {
    List<String> methods =
        Arrays.stream(KafkaProducer.class.getMethods())
            .filter(m -> m.getName().contains("ransaction"))
            .map(m -> m.getName() + Arrays.toString(m.getParameterTypes()))
            .toList();
    assertThat(methods)
        .as("KafkaProducer's transaction methods in kafka-clients 4.3.1")
        .containsExactlyInAnyOrder(
            "initTransactions[]",
            "beginTransaction[]",
            "sendOffsetsToTransaction[interface java.util.Map, class"
                + " org.apache.kafka.clients.consumer.ConsumerGroupMetadata]",
            "commitTransaction[]",
            "abortTransaction[]");
    assertThat(Arrays.stream(Producer.class.getMethods()).map(Method::getName))
        .doesNotContain("prepareTransaction", "completeTransaction");

    // what is public: the state's value type and the setting
    PreparedTxnState state = new PreparedTxnState("42:7");
    assertThat(state.producerId()).isEqualTo(42);
    assertThat(state.epoch()).isEqualTo((short) 7);
    assertThat(state.hasTransaction()).isTrue();
    assertThat(state).hasToString("42:7");
    assertThat(new PreparedTxnState().hasTransaction()).isFalse();
    assertThat(ProducerConfig.TRANSACTION_TWO_PHASE_COMMIT_ENABLE_CONFIG)
        .isEqualTo("transaction.two.phase.commit.enable");

    // the RPC that carries Enable2Pc / KeepPreparedTxn (InitProducerId v6) is not stable
    assertThat(ApiKeys.INIT_PRODUCER_ID.latestVersion(false)).isEqualTo((short) 5);
    assertThat(ApiKeys.INIT_PRODUCER_ID.latestVersion(true)).isEqualTo((short) 6);
  }

  @Test
  void theTwoPhaseSettingForbidsATransactionTimeoutAndOtherwiseChangesNothing() {
    Properties p = producerProperties("spike-settings");
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
    assertThatThrownBy(() -> new KafkaProducer<String, String>(p))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Cannot set transaction.timeout.ms");

    // without a timeout it is an ordinary transactional producer
    String topic = topic("settings");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(producerProperties("spike-plain"))) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "plain", "committed"));
      producer.commitTransaction();
    }
    assertThat(readCommittedUntil(topic, "plain=committed")).isNotEmpty();
  }

  @Test
  void aCrashedProducersOpenTransactionIsAbortedByItsSuccessorAndTheZombieIsFenced()
      throws Exception {
    String id = "spike-crash";
    String topic = topic("crash");
    KafkaProducer<String, String> crashed = new KafkaProducer<>(producerProperties(id));
    crashed.initTransactions();
    crashed.beginTransaction();
    crashed.send(new ProducerRecord<>(topic, "crash", "pre-committed")).get(30, TimeUnit.SECONDS);
    // the records are in the log, in an open transaction; the producer "crashes" (a forced close
    // sends no EndTxn; a plain close() would abort the transaction itself)
    crashed.close(Duration.ZERO);

    KafkaProducer<String, String> zombie = new KafkaProducer<>(producerProperties(id + "-z"));
    zombie.initTransactions();
    zombie.beginTransaction();
    zombie.send(new ProducerRecord<>(topic, "zombie", "never")).get(30, TimeUnit.SECONDS);

    try (KafkaProducer<String, String> successor = new KafkaProducer<>(producerProperties(id));
        KafkaProducer<String, String> zombieSuccessor =
            new KafkaProducer<>(producerProperties(id + "-z"))) {
      successor.initTransactions(); // aborts the crashed producer's transaction
      zombieSuccessor.initTransactions(); // fences the zombie (still alive) and aborts its txn
      assertThatThrownBy(zombie::commitTransaction).isInstanceOf(ProducerFencedException.class);

      successor.beginTransaction();
      successor.send(new ProducerRecord<>(topic, "crash", "after"));
      successor.commitTransaction();
    } finally {
      zombie.close(Duration.ZERO);
    }
    assertThat(readCommittedUntil(topic, "crash=after"))
        .doesNotContain("crash=pre-committed", "zombie=never");
  }

  @Test
  void theInternalKeepPreparedPathDoesNotKeepThePreparedTransaction() throws Exception {
    String id = "spike-prepared";
    String topic = topic("prepared");
    KafkaProducer<String, String> first = new KafkaProducer<>(producerProperties(id));
    first.initTransactions();
    first.beginTransaction();
    first.send(new ProducerRecord<>(topic, "prepared", "kept?")).get(30, TimeUnit.SECONDS);
    TransactionManager tm = transactionManager(first);
    tm.prepareTransaction(); // internal: the state PREPARED_TRANSACTION, no request is sent
    assertThat(tm.isPrepared()).isTrue();
    long producerId = tm.preparedTransactionState().producerId;
    // a prepared transaction cannot take more records, nor can another one begin
    assertThatThrownBy(() -> first.send(new ProducerRecord<>(topic, "prepared", "more")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("while in state  PREPARED_TRANSACTION");
    assertThatThrownBy(first::beginTransaction)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "Invalid transition attempted from state PREPARED_TRANSACTION to state IN_TRANSACTION");
    first.close(Duration.ZERO); // crash while prepared

    try (KafkaProducer<String, String> second = new KafkaProducer<>(producerProperties(id))) {
      TransactionManager tm2 = transactionManager(second);
      TransactionalRequestResult result = tm2.initializeTransactions(true); // "keep prepared"
      wakeSender(second);
      result.await(30, TimeUnit.SECONDS, "initializeTransactions(true)");
      assertThat(tm2.isPrepared())
          .as("the successor found no prepared transaction: the request did not ask to keep it")
          .isFalse();
      assertThat(tm2.preparedTransactionState().producerId).isEqualTo(-1L);
      assertThat(producerId).isNotNegative();
      second.beginTransaction();
      second.send(new ProducerRecord<>(topic, "prepared", "after"));
      second.commitTransaction();
    }
    assertThat(readCommittedUntil(topic, "prepared=after")).doesNotContain("prepared=kept?");
  }

  // ------------------------------------------------------------------ helpers

  /**
   * A topic of one partition for one test: a test that fails leaves no open transaction to another.
   */
  private static String topic(String name) {
    String topic = "spike-" + name;
    kafka.createTopic(topic, 1);
    return topic;
  }

  private static Properties producerProperties(String transactionalId) {
    Properties p =
        kafka.clientProperties(
            Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.TRANSACTION_TWO_PHASE_COMMIT_ENABLE_CONFIG, "true",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000"));
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  /**
   * Everything committed in {@code topic}'s partition 0, as {@code key=value}, read from its start
   * until {@code last} has been read. A read_committed consumer reads up to the last stable offset,
   * which an open transaction holds back; {@code commitTransaction()} returns before the
   * coordinator has written its markers, so this waits (30 s at most) rather than reading to an end
   * offset taken once. Once {@code last} is read, every transaction before it is resolved: an
   * aborted one left nothing.
   */
  private static List<String> readCommittedUntil(String topic, String last) {
    Properties p =
        kafka.clientProperties(
            Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                    StringDeserializer.class.getName()));
    TopicPartition tp = new TopicPartition(topic, 0);
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!out.contains(last)) {
        assertThat(System.nanoTime())
            .as("'%s' committed within 30 s; read so far: %s", last, out)
            .isLessThan(deadline);
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          out.add(r.key() + "=" + r.value());
        }
      }
    }
    return out;
  }

  private static TransactionManager transactionManager(KafkaProducer<?, ?> producer)
      throws ReflectiveOperationException {
    Field f = KafkaProducer.class.getDeclaredField("transactionManager");
    f.setAccessible(true);
    return (TransactionManager) f.get(producer);
  }

  private static void wakeSender(KafkaProducer<?, ?> producer) throws ReflectiveOperationException {
    Field f = KafkaProducer.class.getDeclaredField("sender");
    f.setAccessible(true);
    Object sender = f.get(producer);
    sender.getClass().getMethod("wakeup").invoke(sender);
  }
}
