package io.koala.samples.nexmark;

/**
 * What Nexmark Q6 emits: the average price (cents) of the last {@value Q6Star#LAST_AUCTIONS} (or
 * fewer, at first) auctions a seller closed.
 */
public record SellerAveragePrice(long seller, double averagePrice) {}
