package io.koala.samples.nexmark;

/**
 * A Nexmark person, who may sell auctions and bid: {@code dateTime} is when they registered (event
 * time, milliseconds); {@code state} is one of {@code AZ, CA, ID, OR, WA, WY}.
 */
public record Person(
    long id,
    String name,
    String emailAddress,
    String creditCard,
    String city,
    String state,
    long dateTime)
    implements NexmarkEvent {}
