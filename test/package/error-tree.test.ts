import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// One error tree: every error matframe makes is a MatframeError (src/errors.ts), so a caller's
// `catch (e) { if (e instanceof MatframeError) ... }` and a switch on `e.code` see them all. This
// reads every file of src/ with TypeScript's parser and lists each place that makes an error of
// another kind: a built-in error (`new Error`, `TypeError(...)`), a class of src/ that extends a
// built-in error other than through MatframeError, or a `throw new` of a class outside the tree.

const root = join(__dirname, "../..");
const src = join(root, "src");

const BUILT_IN_ERRORS = new Set([
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "ReferenceError",
  "EvalError",
  "URIError",
  "AggregateError",
  "DOMException",
]);

/**
 * Places allowed to make another kind of error, each with the reason it never reaches a caller.
 * Keyed by `file:constructor`.
 */
const ALLOWED = new Map([
  [
    "src/client/transport/dispatcher.ts:Error",
    "handed to undici's connector with a code of ours; failure.ts turns it into a ConnectionError",
  ],
  [
    "src/client/transport/interceptors/retry.ts:DOMException",
    "the reason of the per-attempt timeout's signal; failure.ts turns that abort into a TimeoutError",
  ],
  [
    "src/client/transport/interceptors/retry.ts:Error",
    "the last failure handed down undici's handler chain with its kind; failure.ts turns it into the matching error of the tree",
  ],
  [
    "src/client/transport/interceptors/decompress.ts:Error",
    "an unsupported content coding handed down undici's handler chain with a code of ours; failure.ts classifies it",
  ],
  [
    "src/client/transport/interceptors/body-caps.ts:Error",
    "a body over its cap handed down undici's handler chain with a code of ours; failure.ts classifies it",
  ],
]);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const files = walk(src)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
  .map((file) => ({
    name: relative(root, file),
    tree: ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true),
  }));

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

/** Every class of src/ by name, with the name it extends (if any). */
function classBases(): Map<string, string | undefined> {
  const bases = new Map<string, string | undefined>();
  for (const { tree } of files)
    visit(tree, (node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      const heritage = node.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword);
      const base = heritage?.types[0]?.expression;
      bases.set(node.name.text, base && ts.isIdentifier(base) ? base.text : undefined);
    });
  return bases;
}

const bases = classBases();

/** Whether `name` is MatframeError or extends it, through classes of src/. */
function inTree(name: string): boolean {
  const seen = new Set<string>();
  let current: string | undefined = name;
  while (current !== undefined && !seen.has(current)) {
    if (current === "MatframeError") return true;
    seen.add(current);
    current = bases.get(current);
  }
  return false;
}

/** `file:line: what` for each place that makes an error outside the tree. */
function offenders(): string[] {
  const found: string[] = [];
  for (const { name, tree } of files)
    visit(tree, (node) => {
      const line = () => tree.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const report = (made: string, what: string) => {
        if (!ALLOWED.has(`${name}:${made}`)) found.push(`${name}:${line()}: ${what}`);
      };
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression)) {
        const made = node.expression.text;
        if (BUILT_IN_ERRORS.has(made)) report(made, `${ts.isNewExpression(node) ? "new " : ""}${made}(...)`);
      }
      if (ts.isClassDeclaration(node) && node.name) {
        const base = bases.get(node.name.text);
        if (base !== undefined && BUILT_IN_ERRORS.has(base) && node.name.text !== "MatframeError")
          report(node.name.text, `class ${node.name.text} extends ${base}`);
      }
      if (ts.isThrowStatement(node) && node.expression && ts.isNewExpression(node.expression)) {
        const made = node.expression.expression;
        if (ts.isIdentifier(made) && bases.has(made.text) && !inTree(made.text))
          report(made.text, `throw new ${made.text}, not a MatframeError`);
      }
    });
  return found;
}

describe("the error tree", () => {
  it("MatframeError, in src/errors.ts, is the one class of src/ that extends a built-in error", () => {
    expect(bases.get("MatframeError")).toBe("Error");
    expect(inTree("ValidationError")).toBe(true);
  });

  it("no file of src/ makes an error that is not a MatframeError", () => {
    expect(offenders()).toEqual([]);
  });

  it("each allowed exception still exists, so the list cannot go stale", () => {
    const made = new Set<string>();
    for (const { name, tree } of files)
      visit(tree, (node) => {
        if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression))
          made.add(`${name}:${node.expression.text}`);
      });
    expect([...ALLOWED.keys()].filter((key) => !made.has(key))).toEqual([]);
  });
});
