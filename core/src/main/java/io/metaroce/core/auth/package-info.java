/**
 * Optional per-packet authentication (spec section 10, {@code AUTH-*}): AES-128-GCM over every header field,
 * the payload authenticated or encrypted, a per-path sequence number in the nonce and a per-path replay window.
 * Keys are derived per connection from a pre-shared key ({@link io.metaroce.core.auth.AuthKeys}); the engine
 * seals and opens with a {@link io.metaroce.core.auth.PacketAuth} per QP.
 */
package io.metaroce.core.auth;
