import fc from "fast-check";
import { at } from "../../support/checked";

// Generators of hostile `query` and `projection` values, as a careless or malicious user of
// the API could send them. Objects are built with Object.fromEntries so that a "__proto__"
// key becomes an own property, exactly as JSON.parse makes it on the server.

/** Every operator the server allows (issue 2). */
export const ALLOWED_OPERATORS = [
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$and",
  "$or",
  "$nor",
  "$not",
  "$exists",
  "$type",
  "$regex",
  "$options",
  "$mod",
  "$all",
  "$elemMatch",
  "$size",
] as const;

/** Operators that run code or reach outside the collection in MongoDB or mingo. */
export const CODE_OPERATORS = [
  "$where",
  "$function",
  "$accumulator",
  "$expr",
  "$jsonSchema",
  "$text",
  "$lookup",
  "$graphLookup",
  "$merge",
  "$out",
  "$eval",
  "$let",
  "$map",
  "$reduce",
  "$getField",
  "$setField",
  "$sampleRate",
  "$comment",
  "$rand",
  "$toString",
  "$convert",
  "$geoWithin",
  "$near",
] as const;

export const FORBIDDEN_KEYS = ["__proto__", "constructor", "prototype"] as const;

/** Paths that exist in the data, paths that do not, and paths through prototypes. */
export const PATHS = [
  "formula",
  "name",
  "_id",
  "lattice.a",
  "lattice.type",
  "owner._id",
  "owner.slug",
  "method.type",
  "method.subtype",
  "method.data.pseudo",
  "derivedProperties",
  "derivedProperties.0.value",
  "tags",
  "basis.elements",
  "external.id",
  "createdAt",
  "a.b.c.d.e",
  "0",
  "x.0.y",
  "",
  ".",
  "a..b",
  "$",
  "a.$",
  "a.__proto__",
  "__proto__.polluted",
  "constructor.prototype.polluted",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "length",
] as const;

/** Strings that are awkward: unicode, control characters, lone surrogates, quotes, escapes. */
export const awkwardString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\uD800",
    "\uDFFF",
    "%",
    "%%",
    "%ZZ",
    "+",
    "&",
    "=",
    "?",
    "#",
    "\\",
    '"',
    "\r\n",
    "Fe2O3, hematite",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "ß",
  ),
);

/** Scalars, including ones JSON cannot hold exactly (they become null or lose precision). */
export const scalar = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    1,
    -1,
    0.5,
    1e308,
    -1e308,
    2 ** 53 + 1,
    Number.MAX_SAFE_INTEGER,
    Number.NaN,
    Infinity,
  ),
  fc.integer(),
  fc.double(),
  awkwardString,
);

/** Any key an attacker might use, weighted towards the interesting ones. */
export const hostileKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 3, arbitrary: fc.constantFrom(...ALLOWED_OPERATORS) },
  { weight: 2, arbitrary: fc.constantFrom(...CODE_OPERATORS) },
  { weight: 2, arbitrary: fc.constantFrom(...FORBIDDEN_KEYS) },
  { weight: 1, arbitrary: awkwardString.map((s) => `$${s}`) },
  { weight: 1, arbitrary: awkwardString },
);

/** A safe-to-evaluate regex pattern (no backtracking risk), for the in-process tests. */
export const plainPattern = fc.constantFrom(
  "^Si",
  "O3$",
  "ga",
  "^[A-Z][a-z]?\\d",
  "Fe2O3|GaAs",
  "",
  "(",
  "[",
  "*",
  "\\",
  "a{2,1}",
);

/**
 * A hostile JSON value: nested objects and arrays with hostile keys, operators with arguments
 * of every type, and scalars. `pattern` supplies `$regex` arguments.
 */
export function hostileValue(pattern: fc.Arbitrary<string>, maxDepth = 5): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth, withCrossShrink: true },
      scalar,
      fc.array(tie("value"), { maxLength: 5 }),
      fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
      fc
        .tuple(fc.constantFrom(...ALLOWED_OPERATORS, ...CODE_OPERATORS), tie("value"))
        .map(([op, arg]) => ({ [op]: arg })),
      fc
        .tuple(
          pattern,
          fc.oneof(fc.constantFrom("", "i", "m", "s", "ims", "g", "u", "x", "y", "gi", "d"), awkwardString, scalar),
        )
        .map(([regex, options]) => ({ $regex: regex, $options: options })),
    ),
  }));
  return value;
}

/** A query document: usually an object keyed by paths and operators, sometimes not an object. */
export function hostileQuery(pattern: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const value = hostileValue(pattern);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(fc.tuple(hostileKey, value), { minLength: 1, maxLength: 4 })
        .map((e) => Object.fromEntries(e)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...PATHS), fc.constantFrom(...ALLOWED_OPERATORS), value)
        .map(([p, op, v]) => ({ [p]: { [op]: v } })),
    },
    { weight: 1, arbitrary: value },
    { weight: 1, arbitrary: deepNesting },
    { weight: 1, arbitrary: hugeArray },
  );
}

/** The nesting a "mixed" query cycles through, one per level. */
const MIXED = ["object", "array", "$and", "$elemMatch", "$not"] as const;

/** Nesting far beyond any real query, through every nesting operator. */
export const deepNesting: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.integer({ min: 1, max: 120 }),
    fc.constantFrom("object", "array", "$and", "$or", "$nor", "$elemMatch", "$not", "mixed"),
  )
  .map(([depth, how]) => {
    let inner: unknown = { formula: "Si" };
    for (let i = 0; i < depth; i += 1) {
      const kind = how === "mixed" ? at(MIXED, i % MIXED.length) : how;
      if (kind === "object") inner = { a: inner };
      else if (kind === "array") inner = { a: [inner] };
      else if (kind === "$elemMatch") inner = { a: { $elemMatch: inner } };
      else if (kind === "$not") inner = { a: { $not: inner } };
      else inner = { [kind]: [inner] };
    }
    return inner;
  });

/** Arrays around and beyond the server's limits, in every array-taking operator. */
export const hugeArray: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.constantFrom("$in", "$nin", "$all", "$and", "$or", "$nor", "$mod", "$type", "literal"),
    fc.integer({ min: 0, max: 5000 }),
    fc.constantFrom<unknown>(0, "x", null, {}, [], { formula: "Si" }),
  )
  .map(([op, length, item]) => {
    const items = Array.from({ length }, () => item);
    if (op === "literal") return { tags: items };
    if (op === "$and" || op === "$or" || op === "$nor") return { [op]: items };
    return { formula: { [op]: items } };
  });

/** A `projection`: known keys with values of every type, unknown keys, prototype keys. */
export const hostileProjection: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom("fields", "sort", "skip", "limit") },
            { weight: 1, arbitrary: hostileKey },
          ),
          fc.oneof(
            scalar,
            fc.constantFrom(-1, 0, 1, 2, 499, 500, 501, 1e15, -1e15, 2 ** 31, 0.5, "10"),
            fc
              .array(
                fc.tuple(
                  fc.oneof(fc.constantFrom(...PATHS), hostileKey),
                  fc.constantFrom<unknown>(1, 0, -1, true, "1", null, {}, 2),
                ),
              )
              .map((e) => Object.fromEntries(e)),
            fc.array(scalar, { maxLength: 3 }),
          ),
        ),
        { maxLength: 5 },
      )
      .map((entries) => Object.fromEntries(entries)),
  },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
);

/** Turns a value into the JSON text sent; sometimes broken JSON or a non-JSON string instead. */
export function asText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") },
    { weight: 1, arbitrary: value.map((v) => (JSON.stringify(v) ?? "null").slice(0, -1)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "{",
        "}",
        "[",
        "null",
        "undefined",
        "NaN",
        "{'a':1}",
        '{"a":1,}',
        "{a:1}",
        "\u0000",
        "1e999",
        '{"a":1}{"b":2}',
        '"\\ud800"',
        "[][]",
        "{}".repeat(50),
      ),
    },
  );
}

/**
 * Regex patterns built to make a backtracking engine take exponential or high-polynomial time
 * (ReDoS), with the variants a simple guard might miss, plus invalid and oversized patterns.
 */
export const backtrackingPattern: fc.Arbitrary<string> = (() => {
  const atom = fc.constantFrom("a", ".", "\\w", "\\d", "\\s", "[a-z]", "[^,]", "(?:a|b)", "\\S", "[\\s\\S]", "i", "S");
  const quantifier = fc.constantFrom("*", "+", "?", "{1,}", "{0,9}", "{2,5}", "{1,99}", "*?", "+?", "{0,}");
  const n = fc.integer({ min: 2, max: 40 });
  const tail = fc.constantFrom("", "$", "ZZZ", "!", "x$", "\\d{99}");
  return fc.oneof(
    // (a+)+ and friends: a quantified group whose body repeats.
    fc.tuple(atom, quantifier, quantifier, tail).map(([a, q1, q2, t]) => `^(${a}${q1})${q2}${t}`),
    fc.tuple(atom, quantifier, quantifier, tail).map(([a, q1, q2, t]) => `((${a}${q1})x?)${q2}${t}`),
    // (a|aa)*: alternation under repetition.
    fc.tuple(atom, atom, quantifier, tail).map(([a, b, q, t]) => `(${a}|${a}${b})${q}${t}`),
    // Many quantifiers in a row: .?.?.?...ZZZ, .{0,9}.{0,9}...ZZZ, .*.*.*.*x (weighted: the
    // family a guard that only looks at nested groups misses).
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.constantFrom(".", "\\S", "[^,]", "[\\s\\S]", "\\w", "a"),
          fc.constantFrom("?", "{0,9}", "{0,3}", "*", "+", "{1,}", "??"),
          fc.noBias(n),
          fc.constantFrom("ZZZ", "!", "$!"),
        )
        .map(([a, q, k, t]) => `^${`${a}${q}`.repeat(k)}${t}`),
    },
    // Back-references and lookarounds that repeat.
    fc.constantFrom(
      "(a)\\1",
      "(?<n>a+)\\k<n>",
      "(?=(a+))+",
      "(?=a*)*b",
      "(?<=a+)+b",
      "(?:(?=a*))*b",
      "(a*)*$",
      "((a+)?)+$",
      "(\\w+\\s?)+$",
    ),
    // Oversized or invalid.
    fc.tuple(atom, fc.integer({ min: 150, max: 400 })).map(([a, k]) => a.repeat(k)),
    fc.constantFrom(
      "(",
      ")",
      "[",
      "*",
      "+a",
      "a{2,1}",
      "\\",
      "(?<n>a)(?<n>b)",
      "\\p{L}+",
      "[z-a]",
      "(?",
      "\\u{110000}",
    ),
  );
})();
