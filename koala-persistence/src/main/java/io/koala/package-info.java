/**
 * Koala's root package: the exception hierarchy shared by every module, and {@link
 * io.koala.Internal}, which marks the packages that are not API.
 *
 * <p>API (docs/api.md): no public signature here names a type of an internal package.
 */
package io.koala;
