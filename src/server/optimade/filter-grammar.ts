// The OPTIMADE filter language as a peggy grammar, written from the EBNF of the specification
// (https://github.com/Materials-Consortia/OPTIMADE/blob/v1.2.0/optimade.rst, "The Filter Language
// EBNF Grammar"). It yields a small tree (`FilterNode`) that filter-match.ts evaluates; peggy
// builds the parser once, on the first filter the server reads.
import type { Parser } from "peggy";

/** A value on the right of an operator: a constant, or another property. */
export type FilterValue =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "property"; readonly path: readonly string[] };

export type Operator = "=" | "!=" | "<" | "<=" | ">" | ">=";

/** One value of a list, with its operator (`=` when none is written). */
export interface ListItem {
  readonly op: Operator;
  readonly value: FilterValue;
}

/** The parsed filter. */
export type FilterNode =
  | { readonly kind: "or" | "and"; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: "not"; readonly operand: FilterNode }
  | { readonly kind: "compare"; readonly path: readonly string[]; readonly op: Operator; readonly value: FilterValue }
  | { readonly kind: "constants"; readonly left: FilterValue; readonly op: Operator; readonly right: FilterValue }
  | { readonly kind: "known"; readonly path: readonly string[]; readonly known: boolean }
  | {
      readonly kind: "fuzzy";
      readonly path: readonly string[];
      readonly op: "contains" | "starts" | "ends";
      readonly value: FilterValue;
    }
  | {
      readonly kind: "has";
      readonly paths: readonly (readonly string[])[];
      readonly mode: "one" | "all" | "any" | "only";
      /** One tuple per listed value (tuples of one for a plain property). */
      readonly tuples: readonly (readonly ListItem[])[];
    }
  | { readonly kind: "length"; readonly path: readonly string[]; readonly op: Operator; readonly value: FilterValue };

/** The grammar (peggy syntax). Keywords are upper case and identifiers lower case, so they never clash. */
export const FILTER_GRAMMAR = String.raw`
Filter = _ e:Expression _ { return e; }

Expression = left:Clause _ "OR" !IdChar _ right:Expression { return { kind: "or", left, right }; }
  / Clause

Clause = left:Phrase _ "AND" !IdChar _ right:Clause { return { kind: "and", left, right }; }
  / Phrase

Phrase = "NOT" !IdChar _ operand:Atom { return { kind: "not", operand }; }
  / Atom

Atom = "(" _ e:Expression _ ")" { return e; }
  / Comparison

Comparison = ConstantFirst / PropertyFirst

ConstantFirst = left:Constant _ op:Operator _ right:Value { return { kind: "constants", left, op, right }; }

PropertyFirst = path:Property _ rhs:Rhs { return rhs(path); }

Rhs = "IS" !IdChar _ "KNOWN" !IdChar { return (path) => ({ kind: "known", path, known: true }); }
  / "IS" !IdChar _ "UNKNOWN" !IdChar { return (path) => ({ kind: "known", path, known: false }); }
  / "CONTAINS" !IdChar _ value:Value { return (path) => ({ kind: "fuzzy", path, op: "contains", value }); }
  / "STARTS" !IdChar _ ("WITH" !IdChar _)? value:Value { return (path) => ({ kind: "fuzzy", path, op: "starts", value }); }
  / "ENDS" !IdChar _ ("WITH" !IdChar _)? value:Value { return (path) => ({ kind: "fuzzy", path, op: "ends", value }); }
  / "LENGTH" !IdChar _ op:(o:Operator _ { return o; })? value:Value { return (path) => ({ kind: "length", path, op: op ?? "=", value }); }
  / "HAS" !IdChar _ set:SetRhs { return (path) => ({ kind: "has", paths: [path], mode: set.mode, tuples: set.items.map((item) => [item]) }); }
  / more:(_ ":" _ p:Property { return p; })+ _ "HAS" !IdChar _ zip:ZipRhs { return (path) => ({ kind: "has", paths: [path, ...more], mode: zip.mode, tuples: zip.tuples }); }
  / op:Operator _ value:Value { return (path) => ({ kind: "compare", path, op, value }); }

SetRhs = "ALL" !IdChar _ items:List { return { mode: "all", items }; }
  / "ANY" !IdChar _ items:List { return { mode: "any", items }; }
  / "ONLY" !IdChar _ items:List { return { mode: "only", items }; }
  / item:Item { return { mode: "one", items: [item] }; }

ZipRhs = "ALL" !IdChar _ tuples:ZipList { return { mode: "all", tuples }; }
  / "ANY" !IdChar _ tuples:ZipList { return { mode: "any", tuples }; }
  / "ONLY" !IdChar _ tuples:ZipList { return { mode: "only", tuples }; }
  / tuple:Zip { return { mode: "one", tuples: [tuple] }; }

List = first:Item rest:(_ "," _ i:Item { return i; })* { return [first, ...rest]; }
ZipList = first:Zip rest:(_ "," _ z:Zip { return z; })* { return [first, ...rest]; }
Zip = first:Item rest:(_ ":" _ i:Item { return i; })+ { return [first, ...rest]; }
Item = op:(o:Operator _ { return o; })? value:Value { return { op: op ?? "=", value }; }

Value = Constant / path:Property { return { kind: "property", path }; }

Constant = String / Number / Boolean

Operator = "<=" / ">=" / "!=" / "<" / ">" / "="

Property = first:Identifier rest:("." i:Identifier { return i; })* { return [first, ...rest]; }
Identifier = $([a-z_] [a-z_0-9]*)
IdChar = [a-zA-Z_0-9]

Boolean = "TRUE" !IdChar { return { kind: "boolean", value: true }; }
  / "FALSE" !IdChar { return { kind: "boolean", value: false }; }

String = '"' chars:StringChar* '"' { return { kind: "string", value: chars.join("") }; }
StringChar = "\\" c:. { return c; }
  / [^"\\]

Number = text:$([+-]? (Digits ("." Digits?)? / "." Digits) ([eE] [+-]? Digits)?) !IdChar { return { kind: "number", value: Number(text) }; }
Digits = [0-9]+

_ "whitespace" = [ \t\n\r]*
`;

let parser: Parser | undefined;

/** The filter's tree; throws peggy's SyntaxError (with `location`) for a malformed one. */
export function parseFilter(text: string): FilterNode {
  if (!parser) {
    // Loaded with the first filter: a server that is never asked one never builds the parser.
    const peggy = require("peggy") as typeof import("peggy");
    parser = peggy.generate(FILTER_GRAMMAR);
  }
  return parser.parse(text) as FilterNode;
}
