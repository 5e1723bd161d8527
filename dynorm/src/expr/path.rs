//! Paths inside an attribute: the map keys and list indexes under a top-level attribute
//! that a condition tests (`veterinarian.name`, `offspring[0].name`).

use std::fmt::Write as _;

/// How deep a path goes below its attribute.
pub(crate) const MAX_STEPS: usize = 6;

/// One step into a value: a map key, or a list index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.key`
    Key(&'static str),
    /// `[index]`
    Index(u32),
}

/// The steps below an attribute, held inline so that an attribute handle stays `Copy`
/// and can be made in a `const`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steps {
    steps: [Step; MAX_STEPS],
    len: u8,
    /// A step was added past [`MAX_STEPS`]: every condition on the path is refused.
    too_deep: bool,
}

impl Steps {
    /// The attribute itself.
    pub(crate) const NONE: Self = Self {
        steps: [Step::Index(0); MAX_STEPS],
        len: 0,
        too_deep: false,
    };

    /// These steps, then `step`.
    pub(crate) const fn then(mut self, step: Step) -> Self {
        if self.len as usize == MAX_STEPS {
            self.too_deep = true;
        } else {
            self.steps[self.len as usize] = step;
            self.len += 1;
        }
        self
    }

    /// The steps, in order.
    pub(crate) fn as_slice(&self) -> &[Step] {
        &self.steps[..usize::from(self.len)]
    }

    /// Whether there is no step: the path is the attribute.
    pub(crate) const fn is_empty(&self) -> bool {
        self.len == 0 && !self.too_deep
    }

    /// Whether a step went past [`MAX_STEPS`].
    pub(crate) const fn too_deep(&self) -> bool {
        self.too_deep
    }

    /// The path as a user writes it, for messages: `offspring[0].name`.
    pub(crate) fn describe(&self, attribute: &str) -> String {
        let mut out = attribute.to_owned();
        for step in self.as_slice() {
            let _ = match step {
                Step::Key(key) => write!(out, ".{key}"),
                Step::Index(index) => write!(out, "[{index}]"),
            };
        }
        out
    }
}

/// Where inside an attribute an update writes: steps known when compiled, then perhaps
/// the entry of a map under a key chosen at run time (`Update::set_entry`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Inner {
    pub(crate) steps: Steps,
    pub(crate) entry: Option<String>,
}

/// One step of an [`Inner`] path, for comparing paths.
#[derive(PartialEq)]
enum Token<'a> {
    Key(&'a str),
    Index(u32),
}

impl Inner {
    /// The path of `steps`.
    pub(crate) fn of(steps: Steps) -> Self {
        Self { steps, entry: None }
    }

    fn tokens(&self) -> impl Iterator<Item = Token<'_>> {
        let steps = self.steps.as_slice().iter().map(|step| match step {
            Step::Key(key) => Token::Key(key),
            Step::Index(index) => Token::Index(*index),
        });
        steps.chain(self.entry.as_deref().map(Token::Key))
    }

    /// Whether one path is the other or inside it.
    pub(crate) fn overlaps(&self, other: &Inner) -> bool {
        self.tokens().zip(other.tokens()).all(|(a, b)| a == b)
    }

    /// The path as a user writes it, for messages: `reviewers.ann`.
    pub(crate) fn describe(&self, attribute: &str) -> String {
        let mut out = self.steps.describe(attribute);
        if let Some(key) = &self.entry {
            let _ = write!(out, ".{key}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_describes_its_steps_and_refuses_to_go_too_deep() {
        let path = Steps::NONE.then(Step::Index(0)).then(Step::Key("name"));
        assert_eq!(path.describe("offspring"), "offspring[0].name");
        assert!(!path.is_empty() && !path.too_deep());
        let mut deep = Steps::NONE;
        for _ in 0..=MAX_STEPS {
            deep = deep.then(Step::Key("k"));
        }
        assert!(deep.too_deep() && !deep.is_empty());
        assert_eq!(deep.as_slice().len(), MAX_STEPS);
    }

    #[test]
    fn a_map_entry_chosen_at_run_time_overlaps_the_same_key_and_its_map() {
        let vet = Steps::NONE.then(Step::Key("vet"));
        let entry = |key: &str| Inner {
            steps: vet,
            entry: Some(key.to_owned()),
        };
        assert!(entry("ann").overlaps(&entry("ann")));
        assert!(!entry("ann").overlaps(&entry("bo")));
        assert!(Inner::of(vet).overlaps(&entry("ann")));
        assert!(entry("ann").overlaps(&Inner::of(vet.then(Step::Key("ann")))));
        assert_eq!(entry("ann").describe("pet"), "pet.vet.ann");
    }

    #[test]
    fn paths_overlap_when_one_is_inside_the_other() {
        let litter = Steps::NONE.then(Step::Index(0));
        let [litter_, size, name] = [
            litter,
            litter.then(Step::Key("size")),
            litter.then(Step::Key("name")),
        ]
        .map(Inner::of);
        assert!(litter_.overlaps(&size) && size.overlaps(&litter_) && size.overlaps(&size));
        assert!(!size.overlaps(&name));
        assert!(!litter_.overlaps(&Inner::of(Steps::NONE.then(Step::Index(1)))));
    }
}
