/**
 * The Nexmark auction benchmark (WORKLOADS.md): a deterministic generator of persons, auctions and
 * bids ({@link io.koala.samples.nexmark.NexmarkGenerator}), the queries Q1–Q8 and Q11 written with
 * Koala's DSL (one final class each, {@code Q1} … {@code Q11}), and Q6*, the closed-auction stream
 * keyed by seller that the reconfiguration experiments run ({@link
 * io.koala.samples.nexmark.Q6Star}).
 */
package io.koala.samples.nexmark;
