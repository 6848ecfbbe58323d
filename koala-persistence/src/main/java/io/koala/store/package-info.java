/**
 * The state store of a task (DESIGN §4.4): the {@link io.koala.store.StateStore} SPI of
 * transactions over sorted byte-key {@link io.koala.store.Table}s, the {@link
 * io.koala.store.KeyLayout} that makes a bucket and a key's whole state one key range, and two
 * implementations with the same semantics: {@link io.koala.store.LmdbStateStore}, an LMDB
 * environment in a directory that grows its memory map on demand ({@link
 * io.koala.store.StoreOptions}), and {@link io.koala.store.InMemoryStateStore}, sorted heap maps
 * for tests.
 */
@Internal
package io.koala.store;

import io.koala.Internal;
