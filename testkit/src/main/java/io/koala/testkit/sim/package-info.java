/**
 * A deterministic, single-threaded simulation of a whole job over the real task engines: seeded
 * interleaving of messages across (sender, receiver) pairs (FIFO within a pair, Pekko's only
 * guarantee), a virtual clock, and state servers answering from the holders' stores. A failing seed
 * replays exactly.
 */
@Internal
package io.koala.testkit.sim;

import io.koala.Internal;
