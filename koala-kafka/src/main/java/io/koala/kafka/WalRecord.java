package io.koala.kafka;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * One record of a {@link KafkaSink}'s write-ahead log: what its serializer made, in the form a
 * restored writer sends again. Immutable once built (the arrays are not copied: the writer owns
 * them).
 *
 * @param topic the record's topic
 * @param partition its partition, or -1 for the producer's partitioner
 * @param timestamp its timestamp, or -1 for the producer's clock
 * @param key the key bytes, or null
 * @param value the value bytes, or null (a tombstone)
 * @param headers its headers, in order
 */
record WalRecord(
    String topic, int partition, long timestamp, byte[] key, byte[] value, List<Header> headers) {

  WalRecord {
    Objects.requireNonNull(topic, "topic");
    headers = List.copyOf(headers);
  }

  /** The log's copy of {@code r}. */
  static WalRecord of(ProducerRecord<byte[], byte[]> r) {
    Header[] given = r.headers().toArray();
    List<Header> headers = List.of(); // most records have none: no list per record for them
    if (given.length > 0) {
      headers = new ArrayList<>(given.length);
      for (Header h : given) {
        headers.add(new RecordHeader(h.key(), h.value()));
      }
    }
    return new WalRecord(
        r.topic(),
        r.partition() == null ? -1 : r.partition(),
        r.timestamp() == null ? -1 : r.timestamp(),
        r.key(),
        r.value(),
        headers);
  }

  /** The record to send. */
  ProducerRecord<byte[], byte[]> toProducerRecord() {
    return new ProducerRecord<>(
        topic,
        partition < 0 ? null : partition,
        timestamp < 0 ? null : timestamp,
        key,
        value,
        headers);
  }

  /** Bytes the log holds for it, roughly (for the WAL size the writer reports). */
  int size() {
    int n =
        topic.length() + 16 + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    for (Header h : headers) {
      n += h.key().length() + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }

  void writeTo(DataOutputStream out) throws IOException {
    out.writeUTF(topic);
    out.writeInt(partition);
    out.writeLong(timestamp);
    writeBytes(out, key);
    writeBytes(out, value);
    out.writeInt(headers.size());
    for (Header h : headers) {
      out.writeUTF(h.key());
      writeBytes(out, h.value());
    }
  }

  static WalRecord readFrom(DataInputStream in) throws IOException {
    String topic = in.readUTF();
    int partition = in.readInt();
    long timestamp = in.readLong();
    byte[] key = readBytes(in);
    byte[] value = readBytes(in);
    int n = in.readInt();
    List<Header> headers = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      headers.add(new RecordHeader(in.readUTF(), readBytes(in)));
    }
    return new WalRecord(topic, partition, timestamp, key, value, headers);
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b == null ? -1 : b.length);
    if (b != null) {
      out.write(b);
    }
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < -1) {
      throw new IOException("negative length " + n);
    }
    if (n == -1) {
      return null;
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }
}
