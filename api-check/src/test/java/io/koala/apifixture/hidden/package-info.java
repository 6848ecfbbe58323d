/** An internal package planted for {@code io.koala.ApiBoundaryTest}. */
@Internal
package io.koala.apifixture.hidden;

import io.koala.Internal;
