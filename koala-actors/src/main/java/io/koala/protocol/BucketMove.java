package io.koala.protocol;

/** Bucket {@code bucket} moves from task index {@code from} to task index {@code to}. */
public record BucketMove(int bucket, int from, int to) {}
