//! Collects every error found while deriving, so that one compile shows them all.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// The error sink shared by the parse, resolve and check stages.
#[derive(Default)]
pub struct Ctxt {
    /// Every error so far, in the order found.
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// Records an error that points at `tokens`.
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error that syn produced while parsing.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// Returns every recorded error combined into one, if there was any.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
