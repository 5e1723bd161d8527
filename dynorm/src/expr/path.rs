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

    /// Whether one path is the other or inside it: `a.b` and `a.b[0]` overlap, `a.b` and
    /// `a.c` do not.
    pub(crate) fn overlaps(&self, other: &Steps) -> bool {
        let (a, b) = (self.as_slice(), other.as_slice());
        let shorter = a.len().min(b.len());
        a[..shorter] == b[..shorter]
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
    fn paths_overlap_when_one_is_inside_the_other() {
        let litter = Steps::NONE.then(Step::Index(0));
        let size = litter.then(Step::Key("size"));
        let name = litter.then(Step::Key("name"));
        assert!(litter.overlaps(&size) && size.overlaps(&litter) && size.overlaps(&size));
        assert!(!size.overlaps(&name));
        assert!(!litter.overlaps(&Steps::NONE.then(Step::Index(1))));
    }
}
