package io.koala.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link ChecksummedOutput} holds back, and that the file and CRC come out the same. */
class ChecksummedOutputTest {
  private static final int BUFFER = 64;

  /** Writes {@code ints} big-endian ints and some byte runs; returns the bytes it wrote. */
  private static byte[] writeSome(ChecksummedOutput out, long seed) throws Exception {
    Random rnd = new Random(seed);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (int i = 0; i < 200; i++) {
      int v = rnd.nextInt();
      out.writeInt(v);
      expected.write(ByteBuffer.allocate(Integer.BYTES).putInt(v).array());
      byte[] run = new byte[rnd.nextInt(3 * BUFFER)]; // some longer than the buffer
      rnd.nextBytes(run);
      out.writeBytes(run);
      expected.write(run);
    }
    return expected.toByteArray();
  }

  @Test
  void holdsUpToItsLimitUntilTheHoldEnds(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("f");
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ChecksummedOutput out = new ChecksummedOutput(ch, BUFFER, 1 << 20);
      for (int i = 0; i < 10 * BUFFER; i++) {
        out.writeInt(i);
      }
      out.flush();
      assertThat(Files.size(file)).as("held, not written").isZero();
      out.endHold();
      assertThat(Files.size(file)).isEqualTo(10L * BUFFER * Integer.BYTES);
    }
  }

  @Test
  void writesTheSameBytesAndCrcWhetherItHoldsAllSomeOrNone(@TempDir Path dir) throws Exception {
    long seed = new Random().nextLong();
    System.out.println("ChecksummedOutputTest seed " + seed);
    for (long hold : new long[] {0, 3 * BUFFER, 1 << 20}) {
      Path file = dir.resolve("f" + hold);
      byte[] expected;
      int crc;
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ChecksummedOutput out = new ChecksummedOutput(ch, BUFFER, hold);
        expected = writeSome(out, seed);
        crc = out.crc();
        out.endHold();
        assertThat(out.position()).isEqualTo(expected.length);
      }
      CRC32C want = new CRC32C();
      want.update(expected);
      assertThat(Files.readAllBytes(file)).as("hold %d, seed %d", hold, seed).isEqualTo(expected);
      assertThat(crc).as("hold %d, seed %d", hold, seed).isEqualTo((int) want.getValue());
    }
  }
}
