package io.koala.function;

/** A key with a value; the output of keyed aggregates. */
public record KeyValue<K, V>(K key, V value) {}
