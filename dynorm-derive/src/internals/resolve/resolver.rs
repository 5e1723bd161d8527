//! Names written in attributes, resolved against the struct's fields: each unknown one
//! reported once, with a close name when there is one. `key.rs`, `index.rs` and `mod.rs`
//! add the resolutions of their own facts to `Resolver`.

use syn::ext::IdentExt;

use crate::internals::ast::Container;
use crate::internals::attr::FieldRef;
use crate::internals::symbol::did_you_mean;
use crate::internals::Ctxt;

/// Resolves names written in attributes against the struct's fields.
pub(super) struct Resolver<'c, 'a> {
    /// Where unresolved names are reported.
    pub(super) cx: &'c Ctxt,
    /// The struct the names refer to.
    pub(super) cont: &'a Container<'a>,
}

impl Resolver<'_, '_> {
    /// The position of the field `reference` names, or an error suggesting a close name.
    pub(super) fn field(&self, reference: &FieldRef) -> Option<usize> {
        let wanted = reference.ident.unraw();
        let position = self
            .cont
            .fields
            .iter()
            .position(|f| f.ident.unraw() == wanted);
        if position.is_none() {
            let names: Vec<String> = self
                .cont
                .fields
                .iter()
                .map(|f| f.ident.to_string())
                .collect();
            let written = reference.ident.to_string();
            let hint = match did_you_mean(&written, names.iter().map(String::as_str)) {
                Some(close) => format!("; did you mean `{close}`?"),
                None => String::new(),
            };
            self.cx.error_spanned_by(
                &reference.ident,
                format!(
                    "model `{}` has no field `{}`{hint}",
                    self.cont.ident, reference.ident
                ),
            );
        }
        position
    }

    /// The positions of the fields in `references`.
    pub(super) fn fields(&self, references: &[FieldRef]) -> Vec<usize> {
        references.iter().filter_map(|r| self.field(r)).collect()
    }
}
