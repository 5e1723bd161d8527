//! Pure expression values: typed attribute handles, conditions, key conditions and update
//! expressions; their rendering to placeholder maps; and the choice of index for a query.
//!
//! Nothing here holds a client or sends a request. Operations hold these values and
//! render them when they build their request.

pub(crate) mod attr;
pub(crate) mod condition;
pub(crate) mod filters;
pub(crate) mod path;
pub(crate) mod placeholders;
pub(crate) mod plan;
pub(crate) mod update;

pub(crate) use attr::Attr;
pub use attr::{Members, Operand, Optional, ReadOnly, Required, Size, Updatable, Writable};
pub(crate) use condition::Condition;
pub use condition::{AttributeType, Comparison};
pub(crate) use condition::{Conjunction, Expr};
pub(crate) use placeholders::Placeholders;
pub use plan::Plan;
pub(crate) use update::Stored;
pub(crate) use update::Update;
pub use update::{Numeric, SetLike, TextMap};
