package io.koala.checkpoint;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * A buffered big-endian reader of a file channel that keeps the CRC32C of every byte consumed
 * through its checked methods, so a file is checked in the same pass that parses it. Reading past
 * the end throws {@link EOFException}. One thread at a time; the caller owns and closes the
 * channel.
 */
final class ChecksummedInput {
  private final FileChannel channel;
  private final long size;
  private final ByteBuffer buffer;
  private final CRC32C crc = new CRC32C();
  private long position;

  ChecksummedInput(FileChannel channel, int bufferBytes) throws IOException {
    this.channel = channel;
    this.size = channel.size();
    this.buffer = ByteBuffer.allocate(bufferBytes);
    buffer.limit(0);
  }

  /** The file's length when it was opened. */
  long size() {
    return size;
  }

  /** Bytes consumed so far. */
  long position() {
    return position;
  }

  /** Bytes left after the current position. */
  long remaining() {
    return size - position;
  }

  /** The CRC32C of every checked byte consumed so far. */
  int crc() {
    return (int) crc.getValue();
  }

  int readInt() throws IOException {
    fill(Integer.BYTES);
    checksum(Integer.BYTES);
    position += Integer.BYTES;
    return buffer.getInt();
  }

  long readLong() throws IOException {
    fill(Long.BYTES);
    checksum(Long.BYTES);
    position += Long.BYTES;
    return buffer.getLong();
  }

  /** Reads an int that is not part of the CRC: the CRC itself. */
  int readUncheckedInt() throws IOException {
    fill(Integer.BYTES);
    position += Integer.BYTES;
    return buffer.getInt();
  }

  /** Fills {@code target} entirely. */
  void readFully(byte[] target) throws IOException {
    int done = 0;
    while (done < target.length) {
      fill(1);
      int n = Math.min(buffer.remaining(), target.length - done);
      buffer.get(target, done, n);
      crc.update(target, done, n);
      done += n;
      position += n;
    }
  }

  /** Consumes {@code count} bytes, adding them to the CRC without copying them out. */
  void skip(long count) throws IOException {
    long left = count;
    while (left > 0) {
      fill(1);
      int n = (int) Math.min(buffer.remaining(), left);
      checksum(n);
      buffer.position(buffer.position() + n);
      left -= n;
      position += n;
    }
  }

  private void checksum(int bytes) {
    crc.update(buffer.array(), buffer.arrayOffset() + buffer.position(), bytes);
  }

  /** Makes at least {@code bytes} (at most the buffer's capacity) readable from the buffer. */
  private void fill(int bytes) throws IOException {
    if (buffer.remaining() >= bytes) {
      return;
    }
    buffer.compact();
    try {
      while (buffer.position() < bytes) {
        if (channel.read(buffer) < 0) {
          throw new EOFException();
        }
      }
    } finally {
      buffer.flip();
    }
  }
}
