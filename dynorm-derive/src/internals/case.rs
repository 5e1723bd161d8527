//! `rename_all` conventions, applied to snake_case Rust field names.

/// A naming convention accepted by `#[dynorm(rename_all = "...")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`: the field name as written.
    Lower,
    /// `UPPERCASE`
    Upper,
    /// `PascalCase`
    Pascal,
    /// `camelCase`
    Camel,
    /// `snake_case`: the field name as written.
    Snake,
    /// `SCREAMING_SNAKE_CASE`
    ScreamingSnake,
    /// `kebab-case`
    Kebab,
    /// `SCREAMING-KEBAB-CASE`
    ScreamingKebab,
}

impl RenameRule {
    /// Every accepted spelling, in the order they are listed in errors.
    pub const NAMES: &'static [&'static str] = &[
        "lowercase",
        "UPPERCASE",
        "PascalCase",
        "camelCase",
        "snake_case",
        "SCREAMING_SNAKE_CASE",
        "kebab-case",
        "SCREAMING-KEBAB-CASE",
    ];

    /// Parses one of [`Self::NAMES`].
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Applies the rule to a snake_case field name, exactly as serde does: case changes
    /// are ASCII only, so a non-ASCII letter is kept as written.
    pub fn apply(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
            Self::Pascal => {
                let mut pascal = String::with_capacity(field.len());
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => lower_first(&Self::Pascal.apply(field)),
        }
    }

    /// Applies the rule to a PascalCase enum variant name, exactly as serde does.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => lower_first(variant),
            Self::Snake => {
                let mut snake = String::with_capacity(variant.len() + 4);
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

/// The text with its first character in ASCII lower case, as serde's camelCase does.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        std::iter::once(first.to_ascii_lowercase())
            .chain(chars)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn non_ascii_letters_keep_their_case_as_in_serde() {
        assert_eq!(RenameRule::Camel.apply("émile_zola"), "émileZola");
        assert_eq!(RenameRule::Pascal.apply("émile_zola"), "émileZola");
        assert_eq!(RenameRule::Upper.apply("straße"), "STRAßE");
        assert_eq!(
            RenameRule::Snake.apply_to_variant("ÉtéAutomne"),
            "Été_automne"
        );
        assert_eq!(RenameRule::Camel.apply_to_variant("Été"), "Été");
        assert_eq!(
            RenameRule::ScreamingKebab.apply_to_variant("Straße"),
            "STRAßE"
        );
    }

    #[test]
    fn converts_variants_as_serde_does() {
        assert_eq!(
            RenameRule::Lower.apply_to_variant("InProgress"),
            "inprogress"
        );
        assert_eq!(
            RenameRule::Snake.apply_to_variant("InProgress"),
            "in_progress"
        );
        assert_eq!(
            RenameRule::ScreamingKebab.apply_to_variant("InProgress"),
            "IN-PROGRESS"
        );
        assert_eq!(
            RenameRule::Camel.apply_to_variant("InProgress"),
            "inProgress"
        );
        assert_eq!(
            RenameRule::Pascal.apply_to_variant("InProgress"),
            "InProgress"
        );
    }

    #[test]
    fn converts_snake_case_fields() {
        assert_eq!(RenameRule::Camel.apply("customer_id"), "customerId");
        assert_eq!(RenameRule::Camel.apply("id"), "id");
        assert_eq!(RenameRule::Pascal.apply("placed_at"), "PlacedAt");
        assert_eq!(RenameRule::ScreamingSnake.apply("placed_at"), "PLACED_AT");
        assert_eq!(RenameRule::Kebab.apply("placed_at"), "placed-at");
        assert_eq!(RenameRule::ScreamingKebab.apply("a_b"), "A-B");
        assert_eq!(RenameRule::Lower.apply("a_b"), "a_b");
    }
}
