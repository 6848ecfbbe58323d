package io.koala.samples.nexmark;

/**
 * A Nexmark auction, opened by {@code seller} at {@code dateTime} and closing at {@code expires}
 * (event time, milliseconds; {@code expires > dateTime}); prices in cents, {@code reserve >=
 * initialBid}; {@code category} in {@code 10 .. 14}.
 */
public record Auction(
    long id,
    String itemName,
    String description,
    long initialBid,
    long reserve,
    long dateTime,
    long expires,
    long seller,
    long category)
    implements NexmarkEvent {}
