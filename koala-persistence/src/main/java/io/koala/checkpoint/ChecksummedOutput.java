package io.koala.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;

/**
 * A buffered big-endian writer to a file channel that keeps the CRC32C of every byte written
 * through its checked methods. One thread at a time; the caller owns and closes the channel.
 *
 * <p>It can hold back what it writes in memory, up to a limit, until {@link #endHold()}: a snapshot
 * writer reads a store through a transaction that must close as early as possible, so it holds its
 * output while it reads and writes it to the file once the transaction is closed. Past the limit,
 * what is held is written and the rest goes straight to the file, so memory stays bounded whatever
 * the size of the store.
 */
final class ChecksummedOutput {
  private final FileChannel channel;
  private ByteBuffer buffer;
  private final CRC32C crc = new CRC32C();
  private long position;
  private final ArrayDeque<ByteBuffer> held = new ArrayDeque<>();
  private long holdRoom; // bytes that may still be held; 0: write through

  /**
   * @param holdBytes how many bytes to hold in memory until {@link #endHold()} (0: none)
   */
  ChecksummedOutput(FileChannel channel, int bufferBytes, long holdBytes) {
    this.channel = channel;
    this.buffer = ByteBuffer.allocate(bufferBytes);
    this.holdRoom = holdBytes;
  }

  /** Bytes written so far, buffered ones included. */
  long position() {
    return position;
  }

  void writeInt(int value) throws IOException {
    room(Integer.BYTES);
    buffer.putInt(value);
    position += Integer.BYTES;
  }

  void writeLong(long value) throws IOException {
    room(Long.BYTES);
    buffer.putLong(value);
    position += Long.BYTES;
  }

  void writeBytes(byte[] bytes) throws IOException {
    if (bytes.length > buffer.remaining()) {
      flush();
    }
    if (bytes.length >= buffer.capacity()) {
      crc.update(bytes, 0, bytes.length);
      endHold();
      writeFully(ByteBuffer.wrap(bytes));
    } else {
      buffer.put(bytes);
    }
    position += bytes.length;
  }

  /**
   * Writes {@code bytes}' length as an {@code int}, then its bytes, copied straight from the buffer
   * (for instance a store's memory) into this writer's buffer, in pieces when it is larger.
   */
  void writeSizedBytes(DirectBuffer bytes) throws IOException {
    int length = bytes.capacity();
    if (buffer.remaining() < Integer.BYTES + length) {
      flush();
    }
    buffer.putInt(length);
    int copied = 0;
    while (true) {
      int n = Math.min(length - copied, buffer.remaining());
      bytes.getBytes(copied, buffer.array(), buffer.arrayOffset() + buffer.position(), n);
      buffer.position(buffer.position() + n);
      copied += n;
      if (copied == length) {
        break;
      }
      flush();
    }
    position += Integer.BYTES + length;
  }

  /** The CRC32C of every checked byte written so far; flushes the buffer. */
  int crc() throws IOException {
    flush();
    return (int) crc.getValue();
  }

  /** Writes {@code value} without adding it to the CRC, then flushes: for the CRC itself. */
  void writeUncheckedIntAndFlush(int value) throws IOException {
    flush();
    endHold();
    writeFully(ByteBuffer.allocate(Integer.BYTES).putInt(0, value));
    position += Integer.BYTES;
  }

  /** Hands every buffered byte to the channel (or holds it), adding it to the CRC. */
  void flush() throws IOException {
    if (buffer.position() > 0) {
      crc.update(buffer.array(), buffer.arrayOffset(), buffer.position());
      buffer.flip();
      if (buffer.remaining() <= holdRoom) {
        holdRoom -= buffer.remaining();
        held.addLast(buffer);
        buffer = ByteBuffer.allocate(buffer.capacity());
        return;
      }
      endHold();
      writeFully(buffer);
      buffer.clear();
    }
  }

  /** Writes what is held to the channel; from now on everything goes straight to it. */
  void endHold() throws IOException {
    holdRoom = 0;
    while (!held.isEmpty()) {
      writeFully(held.pollFirst());
    }
  }

  private void room(int bytes) throws IOException {
    if (buffer.remaining() < bytes) {
      flush();
    }
  }

  private void writeFully(ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }
}
