package io.koala.window;

/** The result of a keyed window: the key, the window {@code [start, end)} and the value. */
public record WindowResult<K, V>(K key, long start, long end, V value) {}
