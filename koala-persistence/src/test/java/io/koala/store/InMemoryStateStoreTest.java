package io.koala.store;

import java.nio.file.Path;

class InMemoryStateStoreTest extends StateStoreContractTest {

  @Override
  StateStore open(Path dir) {
    return new InMemoryStateStore();
  }
}
