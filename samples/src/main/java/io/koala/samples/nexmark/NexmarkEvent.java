package io.koala.samples.nexmark;

/**
 * An event of the Nexmark stream ({@link NexmarkGenerator}): a {@link Person} registering, an
 * {@link Auction} opening or a {@link Bid}. One generator source of these events feeds every
 * Nexmark query; a query picks the kinds it reads with {@link Nexmark#persons}, {@link
 * Nexmark#auctions} or {@link Nexmark#bids}.
 */
public sealed interface NexmarkEvent permits Person, Auction, Bid {
  /** When the event happened (event time, milliseconds). */
  long dateTime();
}
