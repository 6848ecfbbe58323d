package io.koala.task.state;

import io.koala.KoalaException;
import io.koala.serialization.FieldType;
import io.koala.store.ReadTxn;
import io.koala.store.Table;
import io.koala.store.WriteTxn;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The state declarations a task's store records in {@link Table#METADATA}, one per (operator,
 * state), so that every snapshot of the store carries the schema its state was written with and a
 * restored task can tell whether its operators still read it.
 *
 * <p>Key: the UTF-8 bytes of {@link #PREFIX} + operator name + {@code '/'} + state name (an
 * operator name may itself hold {@code '/'}: read the names from the value, not the key). Value:
 * {@link #encode}, a version byte ({@value #VERSION}) followed by the declaration's parts. Copying
 * every METADATA entry whose key starts with {@link #PREFIX} from one store into another carries
 * the declarations over.
 */
public final class StateDeclarations {
  /** The start of the key of every state declaration in {@link Table#METADATA}. */
  public static final String PREFIX = "koala.state-declaration/";

  /** The version of the encoding {@link #encode} writes. */
  public static final byte VERSION = 1;

  private static final byte[] PREFIX_BYTES = PREFIX.getBytes(StandardCharsets.UTF_8);

  private StateDeclarations() {}

  /** The UTF-8 bytes of {@link #PREFIX}, for scans. */
  public static byte[] prefix() {
    return PREFIX_BYTES.clone();
  }

  /** The METADATA key of the declaration of {@code state} of {@code operator}. */
  public static byte[] key(String operator, String state) {
    return (PREFIX + operator + "/" + state).getBytes(StandardCharsets.UTF_8);
  }

  /** The recorded declaration of {@code state} of {@code operator}, or {@code null}. */
  public static StateDeclaration read(ReadTxn txn, String operator, String state) {
    byte[] b = txn.get(Table.METADATA, key(operator, state));
    return b == null ? null : decode(b);
  }

  /** Every declaration recorded in the store, in key order. */
  public static List<StateDeclaration> all(ReadTxn txn) {
    List<StateDeclaration> out = new ArrayList<>();
    txn.scan(
        Table.METADATA,
        PREFIX_BYTES,
        (k, v) -> {
          out.add(decode(v));
          return true;
        });
    return out;
  }

  /**
   * Records {@code declared} in {@code txn}, after checking that it reads the state an earlier
   * declaration of the same state recorded there was written with ({@link StateCompatibility}).
   *
   * @throws KoalaException naming the operator, the state and every problem, when it does not
   */
  public static void declare(WriteTxn txn, StateDeclaration declared) {
    byte[] key = key(declared.operator(), declared.state());
    byte[] stored = txn.get(Table.METADATA, key);
    byte[] encoded = encode(declared);
    if (stored != null) {
      if (Arrays.equals(stored, encoded)) {
        return;
      }
      List<String> problems = StateCompatibility.check(decode(stored), declared);
      if (!problems.isEmpty()) {
        throw new KoalaException(StateCompatibility.message(declared, problems));
      }
    }
    txn.put(Table.METADATA, key, encoded);
  }

  /** The versioned binary form of {@code d}. */
  public static byte[] encode(StateDeclaration d) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(d.operator());
      out.writeUTF(d.state());
      out.writeUTF(d.kind());
      writeNullable(out, d.valueClass());
      writeNullable(out, d.mapKeyClass());
      if (d.fields() == null) {
        out.writeInt(-1);
      } else {
        out.writeInt(d.fields().size());
        for (FieldType f : d.fields()) {
          out.writeUTF(f.name());
          out.writeUTF(f.type());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** A declaration written by {@link #encode}. */
  public static StateDeclaration decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte version = in.readByte();
      if (version != VERSION) {
        throw new KoalaException(
            "a state declaration recorded in the store has version "
                + version
                + ", which this version of Koala does not read (it reads "
                + VERSION
                + ")");
      }
      String operator = in.readUTF();
      String state = in.readUTF();
      String kind = in.readUTF();
      String valueClass = readNullable(in);
      String mapKeyClass = readNullable(in);
      int n = in.readInt();
      List<FieldType> fields = null;
      if (n >= 0) {
        fields = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          fields.add(new FieldType(in.readUTF(), in.readUTF()));
        }
      }
      return new StateDeclaration(operator, state, kind, valueClass, mapKeyClass, fields);
    } catch (IOException e) {
      throw new KoalaException("a state declaration recorded in the store is truncated", e);
    }
  }

  private static void writeNullable(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      out.writeUTF(s);
    }
  }

  private static String readNullable(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
