package io.koala.apifixture.hidden;

/** An interface of an internal package. */
public interface HiddenContract {}
