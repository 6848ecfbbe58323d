package io.koala.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * A buffered big-endian writer to a file channel that keeps the CRC32C of every byte written
 * through its checked methods. One thread at a time; the caller owns and closes the channel.
 */
final class ChecksummedOutput {
  private final FileChannel channel;
  private final ByteBuffer buffer;
  private final CRC32C crc = new CRC32C();
  private long position;

  ChecksummedOutput(FileChannel channel, int bufferBytes) {
    this.channel = channel;
    this.buffer = ByteBuffer.allocate(bufferBytes);
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
      writeFully(ByteBuffer.wrap(bytes));
    } else {
      buffer.put(bytes);
    }
    position += bytes.length;
  }

  /** The CRC32C of every checked byte written so far; flushes the buffer. */
  int crc() throws IOException {
    flush();
    return (int) crc.getValue();
  }

  /** Writes {@code value} without adding it to the CRC, then flushes: for the CRC itself. */
  void writeUncheckedIntAndFlush(int value) throws IOException {
    flush();
    writeFully(ByteBuffer.allocate(Integer.BYTES).putInt(0, value));
    position += Integer.BYTES;
  }

  /** Hands every buffered byte to the channel, adding it to the CRC. */
  void flush() throws IOException {
    if (buffer.position() > 0) {
      crc.update(buffer.array(), buffer.arrayOffset(), buffer.position());
      buffer.flip();
      writeFully(buffer);
      buffer.clear();
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
