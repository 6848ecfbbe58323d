/**
 * Pure cores of live reconfiguration (DESIGN §5–§6): what a reconfiguration changes, and where the
 * state of each key is (the key lookup table). No Pekko, no lmdbjava.
 */
package io.koala.core.reconfig;
