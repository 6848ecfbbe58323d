package io.koala.store;

/**
 * The sub-databases of a task's environment. Everything a task must snapshot lives in one
 * environment, so one read transaction sees all of it at one instant (DESIGN §4.4).
 */
public enum Table {
  /**
   * Keyed user state: {@code bucket | keyLen | key | stateId | namespace} (see {@link KeyLayout}).
   */
  STATE,
  /**
   * Timers: {@code bucket | domain | timestamp | key | namespace} (see {@link KeyLayout#timerKey}).
   */
  TIMERS,
  /** Key lookup table entries of moved buckets: {@code bucket | keyLen | key}. */
  LOCATIONS,
  /** Operator and task metadata (source offsets, watermarks, protocol cursors). */
  METADATA
}
