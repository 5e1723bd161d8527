//! Text built in a `const fn`, so that a compile-time check's panic names the models,
//! entities and attributes it found: a const panic takes a literal, or one `&str` made at
//! compile time, and this makes that `&str`.

/// The most bytes a message holds; longer text is cut at a character boundary.
const CAPACITY: usize = 480;

/// A message assembled piece by piece in a constant.
pub(crate) struct ConstText {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl ConstText {
    /// An empty message.
    pub(crate) const fn new() -> Self {
        ConstText {
            bytes: [0; CAPACITY],
            len: 0,
        }
    }

    /// The message with `text` added, as much of it as fits.
    pub(crate) const fn push(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        let mut end = text.len();
        if end > CAPACITY - self.len {
            end = CAPACITY - self.len;
            // Back off to the start of a character.
            while end > 0 && (text[end] & 0b1100_0000) == 0b1000_0000 {
                end -= 1;
            }
        }
        let mut i = 0;
        while i < end {
            self.bytes[self.len + i] = text[i];
            i += 1;
        }
        self.len += end;
        self
    }

    /// The message with `items` added, each in backquotes, separated by commas.
    pub(crate) const fn push_list(mut self, items: &[&str]) -> Self {
        let mut i = 0;
        while i < items.len() {
            if i > 0 {
                self = self.push(", ");
            }
            self = self.push("`").push(items[i]).push("`");
            i += 1;
        }
        self
    }

    /// The message so far.
    pub(crate) const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "",
        }
    }

    /// Stops the build with the message.
    pub(crate) const fn fail(&self) -> ! {
        // Only const evaluation calls it, so by construction this panic is a compile error.
        panic!("{}", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_pieces_and_cuts_at_a_character_boundary() {
        const TEXT: ConstText = ConstText::new().push("a `").push("b").push("`: ");
        assert_eq!(TEXT.push_list(&["x", "y"]).as_str(), "a `b`: `x`, `y`");
        let long = "é".repeat(CAPACITY);
        let cut = ConstText::new().push("x").push(&long);
        assert_eq!(cut.as_str().len(), CAPACITY - 1);
        assert!(cut.as_str().ends_with('é'));
    }
}
