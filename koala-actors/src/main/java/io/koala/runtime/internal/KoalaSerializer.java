package io.koala.runtime.internal;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.Pool;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.serialization.TypeRegistry;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.JSerializer;

/**
 * Pekko serializer for every {@link io.koala.protocol.KoalaMessage}: Kryo with registration
 * required (classes come from the ActorSystem's {@link KoalaSerialization} registry; Java
 * serialization is never used). A message larger than Artery's frame is refused with an error
 * naming its class and size rather than handed to the transport.
 */
public final class KoalaSerializer extends JSerializer {
  private final ExtendedActorSystem system;
  private final long maxFrame;
  private volatile Pool<Codec> pool;

  /** One Kryo with its buffers; used by one thread at a time. */
  private static final class Codec {
    final KryoSerde serde;
    final Output output = new Output(4096, -1);
    final Input input = new Input();

    Codec(TypeRegistry registry) {
      this.serde = new KryoSerde(registry);
    }
  }

  public KoalaSerializer(ExtendedActorSystem system) {
    this.system = system;
    String path = "pekko.remote.artery.advanced.maximum-frame-size";
    this.maxFrame =
        system.settings().config().hasPath(path)
            ? system.settings().config().getBytes(path)
            : Long.MAX_VALUE;
  }

  @Override
  public int identifier() {
    return 0x4B6F6131; // "Koa1"
  }

  @Override
  public boolean includeManifest() {
    return false;
  }

  private Pool<Codec> pool() {
    Pool<Codec> p = pool;
    if (p == null) {
      synchronized (this) {
        if (pool == null) {
          TypeRegistry registry = KoalaSerialization.ID.get(system).registry();
          pool =
              new Pool<>(true, false, 64) {
                @Override
                protected Codec create() {
                  return new Codec(registry);
                }
              };
        }
        p = pool;
      }
    }
    return p;
  }

  @Override
  public byte[] toBinary(Object o) {
    Pool<Codec> p = pool();
    Codec c = p.obtain();
    try {
      c.output.reset();
      try {
        c.serde.kryo().writeClassAndObject(c.output, o);
      } catch (RuntimeException e) {
        throw KryoSerde.translate(e, o.getClass().getName());
      }
      if (c.output.position() > maxFrame - 1024) {
        throw new SerializationException(
            o.getClass().getName()
                + " of "
                + c.output.position()
                + " bytes exceeds the remote frame size of "
                + maxFrame
                + " bytes (pekko.remote.artery.advanced.maximum-frame-size); lower"
                + " koala.batch.max-bytes or koala.batch.max-records");
      }
      return c.output.toBytes();
    } finally {
      p.free(c);
    }
  }

  @Override
  public Object fromBinaryJava(byte[] bytes, Class<?> manifest) {
    Pool<Codec> p = pool();
    Codec c = p.obtain();
    try {
      c.input.setBuffer(bytes);
      try {
        return c.serde.kryo().readClassAndObject(c.input);
      } catch (RuntimeException e) {
        throw KryoSerde.translate(e, "a message");
      }
    } finally {
      p.free(c);
    }
  }
}
