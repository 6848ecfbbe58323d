package io.koala.task.state;

import io.koala.operator.NamespacedState;
import io.koala.routing.Murmur3;
import io.koala.serialization.Codecs;
import io.koala.serialization.KeyEncoder;
import io.koala.serialization.KryoSerde;
import io.koala.serialization.SerializationException;
import io.koala.state.Codec;
import io.koala.state.KeyedStateContext;
import io.koala.state.ListState;
import io.koala.state.MapState;
import io.koala.state.ValueState;
import io.koala.store.KeyLayout;
import io.koala.store.ReadTxn;
import io.koala.store.StateStore;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keyed state of one task on its {@link StateStore}: hands out state handles bound to the current
 * key and runs each input batch in one write transaction ({@link #begin}, {@link #commit}). Every
 * access reads or writes the store inside that transaction; nothing of the state is kept on the
 * heap between batches. A state id is the hash of its name; names must be unique per operator.
 *
 * <p>Each state's declaration is recorded in the store ({@link StateDeclarations}) when it is
 * declared, and checked against the one a restored store holds ({@link StateCompatibility}).
 */
public final class KeyedStateBackend implements KeyedStateContext, NamespacedState {
  private static final byte[] NO_NAMESPACE = new byte[0];

  /** {@link #declaredKind}: a {@link ValueState}. */
  public static final String VALUE = "value";

  /** {@link #declaredKind}: a {@link ListState}. */
  public static final String LIST = "list";

  /** {@link #declaredKind}: a {@link MapState}. */
  public static final String MAP = "map";

  /** {@link #declaredKind}: state per namespace, such as a window operator's per window. */
  public static final String NAMESPACED = "window";

  private final String operatorName;
  private final StateStore store;
  private final KryoSerde serde;
  private final KeyEncoder mapKeys;
  private final Map<Integer, String> stateNames = new HashMap<>();
  private final Map<String, String[]> stateTypes = new HashMap<>(); // value class, map key class
  private final Map<String, String> stateKinds =
      new HashMap<>(); // name -> value, list, map, window

  private WriteTxn txn;
  private final BatchCache cache = new BatchCache();
  private final List<byte[]> newKeys = new ArrayList<>();
  private final List<Integer> newKeyBuckets = new ArrayList<>();
  private Object currentKey;
  private byte[] currentKeyBytes;
  private int currentBucket = -1;

  public KeyedStateBackend(String operatorName, StateStore store, KryoSerde serde) {
    this.operatorName = operatorName;
    this.store = Objects.requireNonNull(store);
    this.serde = serde;
    this.mapKeys = new KeyEncoder(serde);
  }

  /** Opens the batch's write transaction. */
  public void begin() {
    txn = store.beginWrite();
  }

  /** Commits the batch's writes. */
  public void commit() {
    WriteTxn t = txn;
    txn = null;
    currentKey = null;
    try {
      cache.flush(t);
      t.commit();
    } catch (RuntimeException e) {
      t.close(); // a refused commit (a full disk) leaves no transaction open behind the task
      throw e;
    }
  }

  /**
   * Writes the batch's cached changes into its transaction, which stays open, so that a scan of the
   * transaction sees them (the remote backend writes borrowed keys back before the commit).
   */
  public void flush() {
    cache.flush(batchTxn());
  }

  /** Aborts the batch's writes, if a transaction is open. */
  public void abort() {
    cache.clear();
    newKeys.clear();
    newKeyBuckets.clear();
    if (txn != null) {
      txn.close();
      txn = null;
    }
    currentKey = null;
  }

  /** Sets the key the next state accesses refer to. */
  public void setCurrentKey(Object key, byte[] keyBytes, int bucket) {
    this.currentKey = key;
    this.currentKeyBytes = keyBytes;
    this.currentBucket = bucket;
  }

  /** The key being processed, or {@code null} outside record processing. */
  public Object currentKey() {
    return currentKey;
  }

  @Override
  public String operatorName() {
    return operatorName;
  }

  @Override
  public <T> ValueState<T> valueState(String name, Class<T> type) {
    return valueState(name, Codecs.forClass(type, serde), type);
  }

  @Override
  public <T> ValueState<T> valueState(String name, Codec<T> codec) {
    return valueState(name, codec, null);
  }

  private <T> ValueState<T> valueState(String name, Codec<T> stateCodec, Class<T> type) {
    int id = declare(name, VALUE, type, null);
    Codec<T> codec = named(name, stateCodec);
    return new ValueState<>() {
      @Override
      public T value() {
        byte[] b = read(key(id, NO_NAMESPACE));
        return b == null ? null : codec.decode(b);
      }

      @Override
      public void update(T value) {
        if (value == null) {
          clear();
        } else {
          write(key(id, NO_NAMESPACE), codec.encode(value));
        }
      }

      @Override
      public void clear() {
        write(key(id, NO_NAMESPACE), null);
      }
    };
  }

  @Override
  public <T> ListState<T> listState(String name, Class<T> elementType) {
    Codec<T> codec = named(name, Codecs.forClass(elementType, serde));
    int id = declare(name, LIST, elementType, null);
    return new ListState<>() {
      @Override
      public List<T> get() {
        byte[] b = read(key(id, NO_NAMESPACE));
        return b == null ? new ArrayList<>() : decodeList(b, codec);
      }

      @Override
      public void add(T value) {
        List<T> list = get();
        list.add(Objects.requireNonNull(value, "list elements must not be null"));
        update(list);
      }

      @Override
      public void update(List<T> values) {
        if (values.isEmpty()) {
          clear();
        } else {
          write(key(id, NO_NAMESPACE), encodeList(values, codec));
        }
      }

      @Override
      public void clear() {
        write(key(id, NO_NAMESPACE), null);
      }
    };
  }

  @Override
  public <K, V> MapState<K, V> mapState(String name, Class<K> keyType, Class<V> valueType) {
    Codec<V> codec = named(name, Codecs.forClass(valueType, serde));
    int id = declare(name, MAP, valueType, keyType);
    return new MapState<>() {
      @Override
      public V get(K mapKey) {
        byte[] b = txn().get(Table.STATE, key(id, mapKeys.encode(mapKey)));
        return b == null ? null : codec.decode(b);
      }

      @Override
      public void put(K mapKey, V value) {
        Objects.requireNonNull(value, "map values must not be null");
        txn().put(Table.STATE, key(id, mapKeys.encode(mapKey)), codec.encode(value));
        keyMayBeNew();
      }

      @Override
      public void remove(K mapKey) {
        txn().delete(Table.STATE, key(id, mapKeys.encode(mapKey)));
      }

      @Override
      public boolean contains(K mapKey) {
        return txn().get(Table.STATE, key(id, mapKeys.encode(mapKey))) != null;
      }

      @Override
      public Map<K, V> entries() {
        WriteTxn t = txn();
        Map<K, V> out = new LinkedHashMap<>();
        byte[] prefix = KeyLayout.statePrefix(currentBucket, currentKeyBytes, id);
        t.scan(
            Table.STATE,
            prefix,
            (k, v) -> {
              byte[] ns = namespaceOf(k, prefix.length);
              out.put(keyType.cast(mapKeys.decode(ns)), codec.decode(v));
              return true;
            });
        return out;
      }

      @Override
      public boolean isEmpty() {
        WriteTxn t = txn();
        byte[] prefix = KeyLayout.statePrefix(currentBucket, currentKeyBytes, id);
        return t.scan(Table.STATE, prefix, null, 1, (k, v) -> false) == 0;
      }

      @Override
      public void clear() {
        WriteTxn t = txn();
        t.deletePrefix(Table.STATE, KeyLayout.statePrefix(currentBucket, currentKeyBytes, id));
      }
    };
  }

  @Override
  public <T> Value<T> value(String name, Codec<T> stateCodec) {
    int id = declare(name, NAMESPACED, null, null);
    Codec<T> codec = named(name, stateCodec);
    return new Value<>() {
      @Override
      public T get(byte[] namespace) {
        byte[] b = read(key(id, namespace));
        return b == null ? null : codec.decode(b);
      }

      @Override
      public void put(byte[] namespace, T value) {
        if (value == null) {
          clear(namespace);
        } else {
          write(key(id, namespace), codec.encode(value));
        }
      }

      @Override
      public void clear(byte[] namespace) {
        write(key(id, namespace), null);
      }
    };
  }

  @Override
  public <T> Appendable<T> list(String name, Codec<T> stateCodec) {
    int id = declare(name, NAMESPACED, null, null);
    Codec<T> codec = named(name, stateCodec);
    return new Appendable<>() {
      @Override
      public List<T> get(byte[] namespace) {
        byte[] b = read(key(id, namespace));
        return b == null ? new ArrayList<>() : decodeList(b, codec);
      }

      @Override
      public void add(byte[] namespace, T value) {
        List<T> list = get(namespace);
        list.add(Objects.requireNonNull(value, "list elements must not be null"));
        put(namespace, list);
      }

      @Override
      public void put(byte[] namespace, List<T> values) {
        if (values.isEmpty()) {
          clear(namespace);
        } else {
          write(key(id, namespace), encodeList(values, codec));
        }
      }

      @Override
      public void clear(byte[] namespace) {
        write(key(id, namespace), null);
      }
    };
  }

  /** The open write transaction, for the timers of the current key. */
  WriteTxn currentTxn() {
    return txn();
  }

  /** The current key's bytes and bucket, for the timers of the current key. */
  byte[] currentKeyBytes() {
    txn();
    return currentKeyBytes;
  }

  /** The current key's bucket (-1 before the first key). */
  public int currentBucket() {
    return currentBucket;
  }

  /** The open write transaction, also between keys (timer scans, key lookups, installs). */
  public WriteTxn batchTxn() {
    if (txn == null) {
      throw new IllegalStateException("no batch transaction open for operator " + operatorName);
    }
    return txn;
  }

  /**
   * The kind of the state named {@code name} as its operator declared it ({@link #VALUE}, {@link
   * #LIST}, {@link #MAP} or {@link #NAMESPACED}), or {@code null} if it declared none of that name
   * (yet: operators declare their state when they open).
   */
  public String declaredKind(String name) {
    return stateKinds.get(name);
  }

  /**
   * The class names a state was declared with: of its values (a list's elements, a map's values;
   * null when declared with a codec), and of a map's keys (else null); null for no such state.
   */
  public String[] declaredTypes(String name) {
    return stateTypes.containsKey(name) ? stateTypes.get(name).clone() : null;
  }

  /** The names of the states the operator declared, sorted. */
  public List<String> declaredStates() {
    return stateKinds.keySet().stream().sorted().toList();
  }

  /**
   * Declares state {@code name} (values of {@code valueClass}, null for a codec; keys of {@code
   * mapKeyClass} for a map) and records the declaration in the store, after checking that it reads
   * the state an earlier one recorded there wrote ({@link StateDeclarations#declare}).
   */
  private int declare(String name, String kind, Class<?> valueClass, Class<?> mapKeyClass) {
    Objects.requireNonNull(name, "state name");
    int id = stateId(name);
    String previous = stateNames.putIfAbsent(id, name);
    if (previous != null) {
      throw new IllegalArgumentException(
          previous.equals(name)
              ? "operator '" + operatorName + "' declares state '" + name + "' twice"
              : "operator '"
                  + operatorName
                  + "': state names '"
                  + previous
                  + "' and '"
                  + name
                  + "' hash to the same id; rename one");
    }
    stateKinds.put(name, kind);
    if (valueClass != null) {
      stateTypes.put(
          name,
          new String[] {valueClass.getName(), mapKeyClass == null ? null : mapKeyClass.getName()});
    }
    StateDeclaration declared =
        new StateDeclaration(
            operatorName,
            name,
            kind,
            valueClass == null ? null : valueClass.getName(),
            mapKeyClass == null ? null : mapKeyClass.getName(),
            valueClass == null ? null : Codecs.schemaOf(valueClass, serde));
    if (txn != null) {
      StateDeclarations.declare(txn, declared);
    } else {
      WriteTxn t = store.beginWrite();
      try {
        StateDeclarations.declare(t, declared);
        t.commit();
      } finally {
        t.close();
      }
    }
    return id;
  }

  /**
   * {@code codec}, whose failures to read a stored value name this operator and state {@code name}
   * (a value stored with a field type its class can no longer take fails so when read, see {@link
   * io.koala.serialization.Codecs}).
   */
  private <T> Codec<T> named(String name, Codec<T> codec) {
    return new Codec<>() {
      @Override
      public byte[] encode(T value) {
        return codec.encode(value);
      }

      @Override
      public T decode(byte[] bytes) {
        try {
          return codec.decode(bytes);
        } catch (SerializationException e) {
          throw new SerializationException(
              "operator '" + operatorName + "' state '" + name + "': " + e.getMessage(), e);
        }
      }
    };
  }

  /** The id under which the store keeps the state named {@code name}. */
  public static int stateId(String name) {
    return Murmur3.hash32(name.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The stored bytes of the {@link ValueState} named {@code stateName} of a key, read from a store
   * holding the key's state (see {@link io.koala.task.TaskEngine#locateState}), or {@code null}:
   * for reads from outside the task's batches, such as a test driver's.
   */
  public static byte[] valueBytes(ReadTxn txn, int bucket, byte[] keyBytes, String stateName) {
    return txn.get(
        Table.STATE, KeyLayout.stateKey(bucket, keyBytes, stateId(stateName), NO_NAMESPACE));
  }

  /**
   * Every store entry of state {@code stateName} of a key, read from a store holding the key's
   * state, in store order, as (namespace, bytes) pairs: the one entry of a value or list state has
   * an empty namespace, and a map state has one entry per map key. For state queries.
   */
  public static void entries(
      ReadTxn txn,
      int bucket,
      byte[] keyBytes,
      String stateName,
      java.util.function.BiConsumer<byte[], byte[]> sink) {
    byte[] prefix = KeyLayout.statePrefix(bucket, keyBytes, stateId(stateName));
    txn.scan(
        Table.STATE,
        prefix,
        (k, v) -> {
          sink.accept(namespaceOf(k, prefix.length), v);
          return true;
        });
  }

  /** The elements of a list state's stored bytes. */
  public static <T> List<T> listOf(byte[] bytes, Codec<T> codec) {
    return decodeList(bytes, codec);
  }

  private WriteTxn txn() {
    if (txn == null || currentKey == null) {
      throw new IllegalStateException(
          "state of operator '" + operatorName + "' used outside the processing of a record");
    }
    return txn;
  }

  /** Reads a value-like entry (value, list, namespaced) through the batch cache. */
  private byte[] read(byte[] storeKey) {
    return cache.get(txn(), storeKey);
  }

  /** Writes (or, with {@code null}, deletes) a value-like entry through the batch cache. */
  private void write(byte[] storeKey, byte[] bytes) {
    if (cache.put(txn(), storeKey, bytes) && bytes != null) {
      keyMayBeNew();
    }
  }

  /** The current key got state it may not have had: report it (see {@link #takeNewKeys}). */
  private void keyMayBeNew() {
    if (newKeys.isEmpty()
        || newKeyBuckets.get(newKeyBuckets.size() - 1) != currentBucket
        || newKeys.get(newKeys.size() - 1) != currentKeyBytes) {
      newKeys.add(currentKeyBytes);
      newKeyBuckets.add(currentBucket);
    }
  }

  /**
   * Hands each key that may have got its first state since the last call to {@code sink} (bucket,
   * key bytes): the key lookup table adds them to its filters of the keys present here.
   */
  public void takeNewKeys(java.util.function.ObjIntConsumer<byte[]> sink) {
    for (int i = 0; i < newKeys.size(); i++) {
      sink.accept(newKeys.get(i), newKeyBuckets.get(i));
    }
    newKeys.clear();
    newKeyBuckets.clear();
  }

  private byte[] key(int stateId, byte[] namespace) {
    return KeyLayout.stateKey(currentBucket, currentKeyBytes, stateId, namespace);
  }

  private static byte[] namespaceOf(byte[] storeKey, int statePrefixLength) {
    int len =
        ((storeKey[statePrefixLength] & 0xFF) << 8) | (storeKey[statePrefixLength + 1] & 0xFF);
    byte[] ns = new byte[len];
    System.arraycopy(storeKey, statePrefixLength + 2, ns, 0, len);
    return ns;
  }

  private static <T> byte[] encodeList(List<T> values, Codec<T> codec) {
    List<byte[]> parts = new ArrayList<>(values.size());
    int total = 4;
    for (T v : values) {
      byte[] b = codec.encode(Objects.requireNonNull(v, "list elements must not be null"));
      parts.add(b);
      total += 4 + b.length;
    }
    ByteBuffer buf = ByteBuffer.allocate(total);
    buf.putInt(parts.size());
    for (byte[] b : parts) {
      buf.putInt(b.length).put(b);
    }
    return buf.array();
  }

  private static <T> List<T> decodeList(byte[] bytes, Codec<T> codec) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    int n = buf.getInt();
    List<T> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[buf.getInt()];
      buf.get(b);
      out.add(codec.decode(b));
    }
    return out;
  }
}
