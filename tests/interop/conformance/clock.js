// The time of writing in the conformance suite, on both sides: an entity that stores the
// time of writing uses `now()` here, and tests/interop.rs fixes dynorm's clock at the same
// time (`dynorm_test::FixedClock`).
"use strict";

const NOW = "2024-05-01T12:00:00.000Z";

/** The fixed time of writing, as `new Date().toISOString()` writes it. */
const now = () => NOW;

module.exports = { NOW, now, NOW_MS: Date.parse(NOW) };
