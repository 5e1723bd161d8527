//! Identity conventions: the attributes each one needs, and those that only fit another.

use crate::internals::ast::Container;
use crate::internals::resolve::{Convention, Model};
use crate::internals::symbol::{ENTITY_VERSION, SERVICE};
use crate::internals::Ctxt;

/// DynamoDB-Toolbox's timestamp attributes, which no field may also map to.
const TOOLBOX_TIMESTAMPS: [&str; 2] = ["_ct", "_md"];

/// `convention`, `service`, `entity_version`, `timestamps`, `collection` and list keys are used
/// together as the convention needs, and no field maps to an identity attribute.
pub fn check_convention(cx: &Ctxt, cont: &Container, model: &Model) {
    let attrs = &cont.attrs;
    let convention = model.entity.as_ref().map(|e| &e.convention);
    if !cont.uses_templates() {
        if let Some(written) = &attrs.convention {
            cx.error_spanned_by(
                written,
                "a convention is for single-table models, whose keys come from #[key(...)] templates",
            );
        }
    }
    let electrodb = matches!(convention, Some(Convention::ElectroDb { .. }));
    let toolbox = matches!(convention, Some(Convention::Toolbox { .. }));
    for (written, what) in [
        (&attrs.service, "service"),
        (&attrs.entity_version, "entity_version"),
    ] {
        if let (Some(written), false) = (written, electrodb) {
            cx.error_spanned_by(
                written,
                format!("`{what}` is ElectroDB's; it needs #[dynorm(convention = \"electrodb\")]"),
            );
        }
    }
    if let (Some((path, _)), false) = (&attrs.timestamps, toolbox) {
        cx.error_spanned_by(
            path,
            "`timestamps` are DynamoDB-Toolbox's `_ct` and `_md`; they need #[dynorm(convention = \"dynamodb-toolbox\")]",
        );
    }
    if electrodb {
        let at = attrs.convention.as_ref();
        let needed = [
            (&attrs.service, SERVICE, "service"),
            (&attrs.entity_version, ENTITY_VERSION, "version"),
        ];
        for (value, key, what) in needed {
            if value.is_none() && !attrs.misspelled.contains(&key) {
                if let Some(at) = at {
                    cx.error_spanned_by(
                        at,
                        format!("ElectroDB's convention needs the entity's {what}: add `{key} = \"..\"`"),
                    );
                }
            }
        }
        if let Some(written) = &attrs.entity_attribute {
            cx.error_spanned_by(
                written,
                "under ElectroDB's convention the entity name is stored in `__edb_e__`",
            );
        }
    }
    for decl in &cont.keys {
        if let Some(scope) = &decl.scope {
            let default_hash = decl.hash.composite;
            if !electrodb || !default_hash {
                cx.error_spanned_by(
                    scope,
                    "`scope` adds a word to ElectroDB's default partition key: it needs the \
                     electrodb convention and a partition key written as a list of fields, `pk = [..]`",
                );
            }
        }
        let Some(collection) = &decl.collection else {
            continue;
        };
        let default_range = decl.range.as_ref().is_some_and(|r| r.composite);
        if !electrodb || !default_range {
            cx.error_spanned_by(
                collection,
                "`collection` puts the entity in an ElectroDB collection by its default sort key: \
                 it needs the electrodb convention and a sort key written as a list of fields, `sk = [..]`",
            );
        }
    }
    check_identity_names(cx, model);
}

/// No field maps to an attribute the convention writes.
fn check_identity_names(cx: &Ctxt, model: &Model) {
    let Some(entity) = &model.entity else {
        return;
    };
    let mut reserved = vec![entity.attribute.as_str()];
    match &entity.convention {
        Convention::ElectroDb { .. } => reserved.push("__edb_v__"),
        Convention::Toolbox { timestamps: true } => reserved.extend(TOOLBOX_TIMESTAMPS),
        _ => {}
    }
    for field in &model.fields {
        if reserved.contains(&field.name.as_str()) {
            cx.error_spanned_by(
                field.member,
                format!(
                    "field `{}` maps to attribute `{}`, which stores the entity's identity",
                    field.member, field.name
                ),
            );
        }
    }
}
