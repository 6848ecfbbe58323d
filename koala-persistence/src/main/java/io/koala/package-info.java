/** Koala's root package: the exception hierarchy shared by every module. */
package io.koala;
