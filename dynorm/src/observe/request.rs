//! [`Request`]: what every builder that sends has besides `send`, as one trait.

use crate::error::Result;
use crate::observe::{Predicted, Tally};

/// What every builder that sends has besides its `send`: the request itself, built
/// without sending it ([`preview`](Self::preview)); the capacity it would consume
/// ([`predict`](Self::predict)); and a [`Tally`] that counts the requests it sent and what
/// they consumed ([`tally`](Self::tally)). One trait, so the three mean the same on every
/// builder; bring it into scope to call them.
///
/// ```
/// use dynorm::observe::Tally;
/// use dynorm::{Client, Model, Request};
///
/// #[derive(Model, Clone)]
/// #[dynorm(table = "users")]
/// struct User {
///     #[hash_key]
///     id: String,
///     name: String,
/// }
///
/// # fn example(db: &Client) -> dynorm::Result<()> {
/// let get = db.get::<User>("u-1");
/// let input = get.preview()?; // the GetItem input `send` would send
/// assert_eq!(input.table_name(), Some("users"));
/// let units = get.predict()?.read_units(); // from an absent item to the largest
/// assert!(units.min() <= units.max());
/// let tally = Tally::default();
/// let _counted = get.tally(&tally); // `send` adds its request and capacity to `tally`
/// # Ok(())
/// # }
/// ```
pub trait Request: Sized + sealed::Sealed {
    /// What [`preview`](Self::preview) gives: the SDK's input of the request, or of each
    /// request where the builder sends several (a batch's chunks, a transaction per
    /// chunk); for a query or a scan, its first page.
    type Input;

    /// The request `send` would send first, built without sending it.
    /// Every error `send` would find before sending is found here.
    fn preview(&self) -> Result<Self::Input>;

    /// The capacity the requests would consume, predicted from the request and the
    /// model's schema without sending them: exact where the request decides it, a range
    /// with its reasons where the items stored do (a model's `max_item_bytes` narrows
    /// it).
    fn predict(&self) -> Result<Predicted>;

    /// Adds the requests sent and what they consume, in total and by table and index, to
    /// `tally`: each request then asks DynamoDB for its consumed capacity (`INDEXES`).
    fn tally(self, tally: &Tally) -> Self;
}

pub(crate) mod sealed {
    /// Only dynorm's builders are requests.
    pub trait Sealed {}
}

/// `impl Request for $builder`: `type Input = $input`, then its `preview` and `predict`
/// (given, with their docs), and the `tally` setter over the builder's `Reporting` at
/// `$report`.
macro_rules! request {
    (
        impl[$($generics:tt)*] $builder:ty { $($report:ident).+ => $input:ty }
        $($methods:tt)*
    ) => {
        impl<$($generics)*> $crate::observe::request::sealed::Sealed for $builder {}

        impl<$($generics)*> $crate::Request for $builder {
            type Input = $input;

            $($methods)*

            fn tally(mut self, tally: &$crate::observe::Tally) -> Self {
                self.$($report).+.tally = Some(tally.clone());
                self
            }
        }
    };
}

pub(crate) use request;
