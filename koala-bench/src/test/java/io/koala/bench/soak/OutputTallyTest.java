package io.koala.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutputTallyTest {
  /** Key 1 read three times, key 2 twice. */
  private static OutputTally written() {
    OutputTally t = new OutputTally();
    t.written(1);
    t.written(1);
    t.written(2);
    t.written(1);
    t.written(2);
    return t;
  }

  @Test
  void everyCountOnceIsComplete() {
    OutputTally t = written();
    for (long c = 1; c <= 3; c++) {
      t.output(1, c);
    }
    t.output(2, 2);
    assertThat(t.complete()).isFalse();
    t.output(2, 1);
    assertThat(t.writtenRecords()).isEqualTo(5);
    assertThat(t.complete()).isTrue();
    assertThat(t.lost()).isZero();
    assertThat(t.duplicated()).isZero();
  }

  @Test
  void aMissingCountIsLostAndARepeatedOneDuplicated() {
    OutputTally t = written();
    t.output(1, 1);
    t.output(1, 3);
    t.output(1, 3);
    t.output(2, 1);
    t.output(2, 2);
    assertThat(t.lost()).as("key 1's count 2").isEqualTo(1);
    assertThat(t.duplicated()).as("key 1's count 3, twice").isEqualTo(1);
  }

  @Test
  void aCountAboveTheRecordsWrittenIsADuplicate() {
    OutputTally t = written();
    for (long c = 1; c <= 4; c++) {
      t.output(1, c); // a record of key 1 counted twice: 4 for 3 records
    }
    t.output(2, 1);
    t.output(2, 2);
    t.output(3, 1); // a key never written
    assertThat(t.lost()).isZero();
    assertThat(t.duplicated()).isEqualTo(2);
  }

  @Test
  void aCountBelowOneIsRefused() {
    assertThatThrownBy(() -> written().output(1, 0)).hasMessageContaining("key 1: a count of 0");
  }
}
