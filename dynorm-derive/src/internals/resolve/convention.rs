//! How a single-table model's items carry their identity (`#[dynorm(convention)]`), as
//! the container's attributes declare it.

use syn::LitStr;

/// The name stored in the entity attribute when `#[dynorm(entity_attribute)]` is absent.
const DEFAULT_ENTITY_ATTRIBUTE: &str = "__entity";

/// How a single-table model's items carry their identity (`#[dynorm(convention)]`).
#[derive(Clone)]
pub enum Convention {
    /// dynorm's own.
    Dynorm,
    /// ElectroDB's: `__edb_e__`, `__edb_v__`, and default keys from service and version.
    ElectroDb {
        /// `service = ".."` (empty when missing, which `check` reports).
        service: String,
        /// `entity_version = ".."` (empty when missing, which `check` reports).
        version: String,
    },
    /// DynamoDB-Toolbox v2's: `_et`, and `_ct`/`_md` with `timestamps`.
    Toolbox {
        /// `timestamps`.
        timestamps: bool,
    },
}

impl Convention {
    /// The convention the container's attributes declare.
    pub(super) fn of(attrs: &crate::internals::attr::ContainerAttrs) -> Self {
        let text = |lit: &Option<LitStr>| lit.as_ref().map_or_else(String::new, LitStr::value);
        match attrs.convention.as_ref().map(LitStr::value).as_deref() {
            Some("electrodb") => Convention::ElectroDb {
                service: text(&attrs.service),
                version: text(&attrs.entity_version),
            },
            Some("dynamodb-toolbox") => Convention::Toolbox {
                // On by default, as in DynamoDB-Toolbox.
                timestamps: attrs.timestamps.as_ref().is_none_or(|(_, on)| *on),
            },
            _ => Convention::Dynorm,
        }
    }

    /// The attribute that stores the entity name, unless `entity_attribute` renames it.
    pub(super) fn entity_attribute(&self) -> &'static str {
        match self {
            Convention::Dynorm => DEFAULT_ENTITY_ATTRIBUTE,
            Convention::ElectroDb { .. } => "__edb_e__",
            Convention::Toolbox { .. } => "_et",
        }
    }
}
