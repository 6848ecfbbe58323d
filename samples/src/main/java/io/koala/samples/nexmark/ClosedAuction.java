package io.koala.samples.nexmark;

/**
 * A closed auction of the Nexmark Q6* stream: the seller, the price it closed at (cents) and when
 * it closed (event time, milliseconds).
 */
public record ClosedAuction(long seller, long price, long dateTime) {}
