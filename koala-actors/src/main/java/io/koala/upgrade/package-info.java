/**
 * Upgrades: what a checkpoint records of the dataflow it was taken of ({@link
 * io.koala.upgrade.PlanSignature}), and whether its state can be restored into another dataflow
 * ({@link io.koala.upgrade.UpgradeCheck}). Pure: no actor system, no store.
 */
@io.koala.Internal
package io.koala.upgrade;
