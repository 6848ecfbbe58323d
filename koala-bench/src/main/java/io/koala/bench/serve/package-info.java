/**
 * {@code ./koala bench serve}: the JMH microbenchmark of a holder answering a fetch (reading the
 * requested keys' state from LMDB and serializing the reply as the runtime does).
 */
package io.koala.bench.serve;
