/**
 * Where each key's state is, and moving it (DESIGN §5.3, §6.4–§6.7): the key lookup table ({@link
 * io.koala.keys.KeyLocations}) with its membership filters, the owner's drain of retiring holders
 * ({@link io.koala.keys.Draining}), and what a holder serves ({@link io.koala.keys.StateServing}).
 * Plain Java.
 */
@Internal
package io.koala.keys;

import io.koala.Internal;
