// DynamoDB expressions in a canonical form, so that two requests that say the same thing
// compare equal whatever their placeholder names, spacing, letter case of keywords,
// redundant parentheses and the order of the operands of AND and OR.
//
// Names and values are put back in place of their placeholders (values as DynamoDB JSON).
// `attribute_exists` of any table key attribute is the same test (the item exists), and
// likewise `attribute_not_exists`, so those are read as one.
"use strict";

const KEYWORDS = new Set(["AND", "OR", "NOT", "BETWEEN", "IN"]);

function tokenize(text) {
  const tokens = [];
  const re = /\s*(<>|<=|>=|[=<>(),]|[#:]?[A-Za-z0-9_.#:\[\]-]+)/y;
  let match;
  while (re.lastIndex < text.length && (match = re.exec(text))) {
    tokens.push(match[1]);
  }
  if (text.slice(re.lastIndex).trim()) {
    throw new Error(`cannot read the expression at: ${text.slice(re.lastIndex)}`);
  }
  return tokens;
}

/** Sorts the keys of maps, so that equal values print the same. */
function stable(value) {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === "object") {
    const out = {};
    for (const key of Object.keys(value).sort()) out[key] = stable(value[key]);
    for (const set of ["SS", "NS", "BS"]) if (out[set]) out[set] = [...out[set]].sort();
    return out;
  }
  return value;
}

/**
 * `text` in canonical form. `names` maps `#placeholders` to names, `values` maps
 * `:placeholders` to DynamoDB JSON, `keys` are the table's key attribute names.
 */
function canonical(text, names = {}, values = {}, keys = [], dropped = []) {
  if (!text) return null;
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const word = () => (peek() || "").toUpperCase();
  const take = (expected) => {
    const token = tokens[at++];
    if (expected && (token || "").toUpperCase() !== expected) {
      throw new Error(`expected ${expected}, found ${token} in: ${text}`);
    }
    return token;
  };
  const path = (token) =>
    token.replace(/#[A-Za-z0-9_]+/g, (placeholder) => {
      if (!(placeholder in names)) throw new Error(`no name for ${placeholder} in: ${text}`);
      return names[placeholder];
    });
  const operand = () => {
    const token = take();
    if (token.startsWith(":")) {
      if (!(token in values)) throw new Error(`no value for ${token} in: ${text}`);
      return `value ${JSON.stringify(stable(values[token]))}`;
    }
    if (peek() === "(") return call(token);
    return path(token);
  };
  const call = (name) => {
    take("(");
    const args = [];
    while (peek() !== ")") {
      args.push(operand());
      if (peek() === ",") take(",");
    }
    take(")");
    const fn = name.toLowerCase();
    if ((fn === "attribute_exists" || fn === "attribute_not_exists") && keys.includes(args[0])) {
      return fn === "attribute_exists" ? "the item exists" : "the item does not exist";
    }
    return `${fn}(${args.join(", ")})`;
  };
  const primary = () => {
    if (peek() === "(") {
      take("(");
      const inner = or();
      take(")");
      return inner;
    }
    if (word() === "NOT") {
      take();
      return { op: "NOT", of: [primary()] };
    }
    const left = operand();
    const op = word();
    if (["=", "<>", "<", "<=", ">", ">="].includes(op)) {
      take();
      return `${left} ${op} ${operand()}`;
    }
    if (op === "BETWEEN") {
      take();
      const low = operand();
      take("AND");
      return `${left} between ${low} and ${operand()}`;
    }
    if (op === "IN") {
      take();
      take("(");
      const list = [];
      while (peek() !== ")") {
        list.push(operand());
        if (peek() === ",") take(",");
      }
      take(")");
      return `${left} in (${list.sort().join(", ")})`;
    }
    return left;
  };
  const joined = (op, next) => () => {
    const parts = [next()];
    while (word() === op) {
      take();
      parts.push(next());
    }
    return parts.length === 1 ? parts[0] : { op, of: parts };
  };
  const and = joined("AND", primary);
  const or = joined("OR", and);
  const tree = or();
  if (at !== tokens.length) throw new Error(`unread tokens ${tokens.slice(at)} in: ${text}`);
  // Tests `dropped` names are left out of the top level, and so is a group of them only
  // (a collection's query tests each of its entities: an OR of ANDs).
  const conjuncts = (node) =>
    typeof node === "object" && node.op === "AND" ? node.of.flatMap(conjuncts) : [node];
  const isDropped = (node) =>
    typeof node === "object" && node.op !== "NOT" ? node.of.every(isDropped) : dropped.includes(show(node));
  const kept = { op: "AND", of: conjuncts(tree).filter((part) => !isDropped(part)) };
  if (kept.of.length === 0) return null;
  return show(kept.of.length === 1 ? kept.of[0] : kept);
}

/** Whether a test holds only of an item that exists: a comparison of an attribute (not
 * `<>`, which a missing attribute passes), or a function of one that needs it present. */
function needsItem(test) {
  if (/^(begins_with|contains|attribute_exists|attribute_type)\(/.test(test)) return true;
  return /^[^ ]+ (=|<|<=|>|>=|between) /.test(test) && !test.startsWith("value ");
}

/** A tree as text: AND and OR flattened, their operands sorted and without repeats. In an
 * AND, "the item exists" goes when another operand already needs the item. */
function show(tree) {
  if (typeof tree === "string") return tree;
  if (tree.op === "NOT") return `NOT (${show(tree.of[0])})`;
  const parts = new Set();
  for (const part of tree.of) {
    if (typeof part === "object" && part.op === tree.op) {
      for (const inner of part.of) parts.add(show(inner));
    } else {
      parts.add(show(part));
    }
  }
  if (tree.op === "AND" && [...parts].some(needsItem)) parts.delete("the item exists");
  const sorted = [...parts].sort();
  return sorted.length === 1 ? sorted[0] : `(${sorted.join(` ${tree.op} `)})`;
}

module.exports = { canonical, stable, KEYWORDS };
