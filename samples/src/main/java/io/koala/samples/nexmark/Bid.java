package io.koala.samples.nexmark;

/** A Nexmark bid: price in cents, event time in milliseconds. */
public record Bid(long auction, long bidder, long price, String channel, long dateTime)
    implements NexmarkEvent {}
