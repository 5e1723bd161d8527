//! [`Budgeted`]: a read with a capacity budget, whose only read is `page`.

use std::future::Future;

use crate::error::Result;
use crate::observe::request::{self, Request};
use crate::observe::{Predicted, Tally};

use super::page::Page;

/// A query, scan, collection or find with a capacity budget, from its `budget(units)`.
///
/// A budget stops a read midway, and only a cursor can resume it, so a budgeted read has
/// one read: [`page`](Self::page). `all`, `stream`, `count` and `first` are not there to
/// call, and a budget cannot be set where they are used. Set everything else on the
/// builder before its `budget`; the builder's [`preview`](Request::preview),
/// [`predict`](Request::predict) and [`tally`](Request::tally) stay, and predict within
/// the budget.
#[must_use = "a budgeted read does nothing until `page` is called"]
#[derive(Clone)]
pub struct Budgeted<R> {
    pub(crate) read: R,
}

impl<R: sealed::Paged> Budgeted<R> {
    /// Reads pages after `cursor` (from a previous page) or from the beginning while the
    /// next one's worst case fits in what is left of the budget, and returns their items
    /// with the cursor that resumes exactly after the last of them (`None` at the end).
    pub async fn page(self, cursor: Option<&str>) -> Result<Page<R::Item>> {
        self.read.page_within(cursor).await
    }
}

impl<R: Request> request::sealed::Sealed for Budgeted<R> {}

impl<R: Request> Request for Budgeted<R> {
    type Input = R::Input;

    fn preview(&self) -> Result<R::Input> {
        self.read.preview()
    }

    fn predict(&self) -> Result<Predicted> {
        self.read.predict()
    }

    fn tally(self, tally: &Tally) -> Self {
        Budgeted {
            read: self.read.tally(tally),
        }
    }
}

pub(crate) mod sealed {
    use super::*;

    /// A read that pages within its budget: a query, a scan, a collection or a find.
    pub trait Paged: Sized {
        /// What its pages hold.
        type Item;

        /// Its `page`, within the budget it was given.
        fn page_within<'a>(
            self,
            cursor: Option<&'a str>,
        ) -> impl Future<Output = Result<Page<Self::Item>>> + Send + 'a
        where
            Self: 'a;
    }
}

/// `impl Paged for $builder`, whose inherent `page` reads within its budget (its future
/// `Send` where the `where` bounds hold).
macro_rules! paged {
    (impl[$($generics:tt)*] $builder:ty => $item:ty $(where $($bounds:tt)*)?) => {
        impl<$($generics)*> $crate::query::budgeted::sealed::Paged for $builder
        $(where $($bounds)*)?
        {
            type Item = $item;

            fn page_within<'a>(
                self,
                cursor: Option<&'a str>,
            ) -> impl std::future::Future<Output = $crate::error::Result<$crate::query::Page<$item>>>
                   + Send
                   + 'a
            where
                Self: 'a,
            {
                self.page(cursor)
            }
        }
    };
}

pub(crate) use paged;
