//! [`CursorKey`], the secret that seals page cursors, derived from the client's secret.

use chacha20poly1305::XChaCha20Poly1305;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::{Error, Result};

/// The shortest cursor key, in bytes: 256 bits, the strength of the XChaCha20-Poly1305
/// key derived from it. Anyone who holds a cursor can test guesses of the key against it
/// offline (each guess either opens it or not), so the key must be a random secret, not
/// a password; a shorter one is refused when the client is built.
pub(crate) const MIN_KEY_BYTES: usize = 32;

/// The secret that seals page cursors: set with
/// [`ClientBuilder::cursor_key`](crate::client::ClientBuilder::cursor_key).
#[derive(Clone)]
pub struct CursorKey(pub(super) XChaCha20Poly1305);

impl CursorKey {
    /// The cursor key of `secret`, at least [`MIN_KEY_BYTES`] long.
    ///
    /// The cipher's key is derived from the secret with HKDF-Expand (RFC 5869) over
    /// HMAC-SHA256, with the secret as the pseudorandom key: a random secret of 32 bytes
    /// or more already is one (RFC 5869, section 3.3), so there is no extract step. One
    /// block of output is `HMAC(secret, info || 0x01)`, which is the 32 bytes needed.
    pub(crate) fn new(secret: &[u8]) -> Result<Self> {
        if secret.len() < MIN_KEY_BYTES {
            return Err(Error::config(format!(
                "the cursor key is {} bytes; it must be a random secret of at least \
                 {MIN_KEY_BYTES} bytes (anyone holding a cursor could test guesses of a \
                 shorter or guessable key against it)",
                secret.len()
            ))
            .with_operation("cursor_key"));
        }
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret)
            .map_err(|_| Error::config("HMAC-SHA256 refused the cursor key"))?;
        mac.update(b"dynorm page cursor key v1");
        mac.update(&[1]);
        let derived = mac.finalize().into_bytes();
        let cipher = XChaCha20Poly1305::new_from_slice(&derived)
            .map_err(|_| Error::config("the derived cursor cipher key is not 32 bytes"))?;
        Ok(Self(cipher))
    }
}

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}
