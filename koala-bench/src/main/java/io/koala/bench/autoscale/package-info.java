/**
 * {@code koala experiment autoscale}: a diurnal input (1× to 4× and back, the hot keys shifting at
 * each peak) run four ways — Koala's autoscaler, the same policy carried out by stop-and-restart,
 * static provisioning for the peak and for the mean — with each second's end-to-end lag, the
 * task-seconds used, the state moved and the decisions taken.
 */
package io.koala.bench.autoscale;
