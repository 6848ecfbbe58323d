package io.koala.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.koala.protocol.Deliver;
import io.koala.protocol.RecordBatch;
import io.koala.runtime.ConfigurationException;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.serialization.TypeRegistry;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.Test;

/**
 * The Pekko serializer of every message that crosses ActorSystems applies the ActorSystem's {@code
 * koala.serialization.max-depth}: a message nested deeper fails with an error naming its class and
 * the limit; an ordinary one passes.
 */
class SerializerDepthTest {

  /** A linked chain of records, nesting one level per link. */
  record Link(int n, Link next) {}

  static Link chain(int links) {
    Link head = null;
    for (int i = links; i > 0; i--) {
      head = new Link(i, head);
    }
    return head;
  }

  static ActorSystem<Void> system(int maxDepth) {
    Config config =
        ConfigFactory.parseString("koala.serialization.max-depth = " + maxDepth)
            .withFallback(ConfigFactory.load());
    return ActorSystem.create(Behaviors.empty(), "serializer-depth", config);
  }

  static Deliver deliver(Object value) {
    return new Deliver(0, 1, new RecordBatch(new Object[] {value}, new long[] {7}, 1));
  }

  @Test
  void aMessageNestedDeeperThanTheSystemsLimitFailsNamingItsClassAndTheLimit() throws Exception {
    ActorSystem<Void> system = system(20);
    try {
      KoalaSerialization.registry(system).register(Link.class);
      assertThat(KoalaSerialization.registry(system).maxDepth()).isEqualTo(20);
      Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
      Deliver ordinary = deliver(chain(5));
      Serializer serializer = serialization.findSerializerFor(ordinary);
      assertThat(serializer).isInstanceOf(KoalaSerializer.class);

      Deliver back = (Deliver) serializer.fromBinary(serializer.toBinary(ordinary));
      assertThat(((RecordBatch) back.item()).value(0)).isEqualTo(chain(5));

      assertThatThrownBy(() -> serializer.toBinary(deliver(chain(40))))
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith(Deliver.class.getName() + " nests objects more than 20 levels")
          .hasMessageContaining("koala.serialization.max-depth = 20");

      // written where the limit is higher, refused where it is not
      TypeRegistry lenient = TypeRegistry.withDefaults();
      KoalaSerialization.registerMessages(lenient);
      lenient.register(Link.class);
      lenient.setMaxDepth(TypeRegistry.MAX_MAX_DEPTH);
      byte[] deep = new KryoSerde(lenient).toBytes(deliver(chain(40)));
      assertThatThrownBy(() -> serializer.fromBinary(deep))
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith(
              "a message (" + Deliver.class.getName() + ") nests objects more than 20 levels")
          .hasMessageContaining("koala.serialization.max-depth = 20");
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSystemWithALimitOutOfRangeFailsNamingThePath() throws Exception {
    ActorSystem<Void> system = system(8);
    try {
      assertThatThrownBy(() -> KoalaSerialization.registry(system))
          .isInstanceOf(ConfigurationException.class)
          .hasMessage("koala.serialization.max-depth = 8 is out of range; allowed: [16, 1024]");
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
