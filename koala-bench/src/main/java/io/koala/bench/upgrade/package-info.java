/**
 * The upgrade experiment ({@code koala experiment upgrade}): a job stopped with a savepoint and its
 * next version, with an evolved state class and a changed dataflow, restored from it.
 */
package io.koala.bench.upgrade;
