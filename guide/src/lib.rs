// The dynorm guide. Each chapter is a Markdown file beside this crate's Cargo.toml,
// readable on GitHub, and the documentation of one module here, so that rustdoc compiles
// every example (and runs those that are not `no_run`) with `cargo test --workspace`.
//
// The chapters link to each other with reference-style links (`[Reads][reads]`). Each
// file defines its labels at its end as relative `.md` paths, for GitHub; `links.md` comes
// first in every module's documentation and defines the same labels as paths in this
// crate, and in Markdown the first definition of a label wins. (One `doc` attribute per
// module, so that rustdoc names each example after this file, not after `links.md`.)
#![doc = include_str!("links.md")]
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

/// Declares each chapter: a module whose documentation is the chapter's Markdown file.
macro_rules! chapters {
    ($($module:ident => $file:literal,)*) => {
        $(
            #[doc = concat!(include_str!("links.md"), include_str!(concat!("../", $file)))]
            pub mod $module {}
        )*
    };
}

chapters! {
    // The workspace README's short tour, so that it stays true.
    _00_readme => "../README.md",
    _01_models_and_keys => "01-models-and-keys.md",
    _02_reads => "02-reads.md",
    _03_writes_and_conditions => "03-writes-and-conditions.md",
    _04_indexes_and_single_table => "04-indexes-and-single-table.md",
    _05_relations => "05-relations.md",
    _06_unique_and_counts => "06-unique-and-counts.md",
    _07_costs_and_budgets => "07-costs-and-budgets.md",
    _08_change_streams => "08-change-streams.md",
    _09_evolving_a_table => "09-evolving-a-table.md",
    _10_testing => "10-testing.md",
    _11_lambda => "11-lambda.md",
    _12_sharing_tables => "12-sharing-tables.md",
    _13_vocabulary => "13-vocabulary.md",
    _14_observability => "14-observability.md",
    _15_attributes_storage_tables => "15-attributes-storage-tables.md",
    _16_cargo_features => "16-cargo-features.md",
    _17_command_line => "17-command-line.md",
    _18_performance => "18-performance.md",
}
