// The flag layer every command shares: Node's parseArgs underneath, its errors said in the CLI's
// own words (the flag the user typed, the nearest real flag, how to pass a value that starts with
// a dash), and help text wrapped at word boundaries to the terminal.
import { parseArgs } from "node:util";
import { editDistance } from "../edit-distance";
import { UsageError } from "./errors";

/** The options of one command, as parseArgs takes them. */
export type FlagSpec = Record<
  string,
  { readonly type: "string" | "boolean"; readonly short?: string; readonly multiple?: boolean }
>;

/** What {@link parseFlags} gives for a spec: strings, booleans, or lists for repeatable flags. */
export type FlagValues<S extends FlagSpec> = {
  [K in keyof S]?: S[K] extends { multiple: true } ? string[] : S[K] extends { type: "boolean" } ? boolean : string;
};

/**
 * The known name nearest to `typed` when it looks like a typo of it (a third of its length in
 * edits, at least one, at most three), else undefined.
 * @example nearestName("ouput", ["output", "format"]) // "output"
 */
export function nearestName(typed: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = name.startsWith(typed) && typed.length >= 3 ? 0.5 : editDistance(typed, name);
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/**
 * Parses `argv` for `matframe <command>`; a mistake is a UsageError in the CLI's words, ending
 * with where to find the options.
 */
export function parseFlags<const S extends FlagSpec>(command: string, argv: string[], options: S): FlagValues<S> {
  try {
    return parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false })
      .values as FlagValues<S>;
  } catch (error) {
    const mistake = describeMistake(error, argv, options);
    throw new UsageError(
      `${mistake}${/[?.]$/.test(mistake) ? "" : "."} Run "matframe ${command} --help" for the options.`,
    );
  }
}

/**
 * {@link parseFlags} for a command that also takes words of its own (`matframe jobs wait ID...`):
 * the flags and, in order, the words that are not flags.
 */
export function parseFlagsAndWords<const S extends FlagSpec>(
  command: string,
  argv: string[],
  options: S,
): { values: FlagValues<S>; words: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: true });
    return { values: parsed.values as FlagValues<S>, words: parsed.positionals };
  } catch (error) {
    const mistake = describeMistake(error, argv, options);
    throw new UsageError(
      `${mistake}${/[?.]$/.test(mistake) ? "" : "."} Run "matframe ${command} --help" for the options.`,
    );
  }
}

function describeMistake(error: unknown, argv: readonly string[], options: FlagSpec): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = String((error as Error).message);
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  const names = Object.keys(options);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag) {
    const bare = flag.replace(/^-+/, "").replace(/=.*$/, "");
    const near = nearestName(bare, names);
    return `unknown option ${flag}${near ? `; did you mean --${near}?` : ""}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
    const name = flag.replace(/^-+/, "");
    const long = options[name] ? name : (Object.entries(options).find(([, spec]) => spec.short === name)?.[0] ?? name);
    if (options[long]?.type === "boolean") return `--${long} takes no value (it is on when given)`;
    const at = argv.indexOf(flag);
    const next = at >= 0 ? argv[at + 1] : undefined;
    if (next?.startsWith("-")) {
      return `--${long} needs a value, and "${next}" looks like an option; if it is the value, write --${long}=${next}`;
    }
    return `--${long} needs a value`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const word = /'([^']*)'/.exec(message)?.[1] ?? "";
    return `unexpected argument "${word}": every option starts with --${word === "" ? "" : ` (is a flag's value missing before it, or a quote around it?)`}`;
  }
  return message.replace(/\.$/, "");
}

/**
 * Wraps help text to `width` columns at word boundaries. A long line of an option list keeps
 * its description column: continuation lines are indented to where the description began.
 */
export function wrapHelp(text: string, width = Math.max(60, Math.min(process.stdout.columns ?? 80, 100))): string {
  const column = commonColumn(text);
  return reflow(text, column)
    .flatMap((line) => wrapLine(line, width, column))
    .join("\n");
}

/** The description column most option lines of a help text use. */
function commonColumn(text: string): number | undefined {
  const counts = new Map<number, number>();
  for (const line of text.split("\n")) {
    const at = /^(\s+-\S.*?\s{2,})\S/.exec(line)?.[1]?.length;
    if (at !== undefined) counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * Where an option line's description starts ("  --flag VALUE   description", or a command's
 * "  serve   description"), if it has one: after
 * two spaces, or at the text's common column when a long flag leaves only one.
 */
function descriptionColumn(line: string, common: number | undefined): number | undefined {
  // A command of a command list ("  serve       description") is laid out like an option.
  const command = /^(\s+[a-z][\w-]*\s{2,})\S/.exec(line);
  if (command) return command[1]!.length;
  if (!/^\s+-/.test(line)) return undefined;
  const option = /^(\s+-\S.*?\s{2,})\S/.exec(line);
  if (option) return option[1]!.length;
  if (common !== undefined && line.length > common && line[common - 1] === " " && line[common] !== " ") return common;
  return undefined;
}

/**
 * The help text as logical lines: a paragraph's lines joined, and an option's description joined
 * with the lines that continue it (indented to its description column), so wrapping starts from
 * whole sentences.
 */
function reflow(text: string, common: number | undefined): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const prev = out.at(-1);
    const indent = /^\s*/.exec(line)![0].length;
    const joinParagraph =
      prev !== undefined &&
      indent === 0 &&
      line.trim() !== "" &&
      prev.trim() !== "" &&
      /^\S/.test(prev) &&
      !/:$/.test(prev) &&
      !/^[A-Z][\w ]*:/.test(line);
    const column = prev === undefined ? undefined : descriptionColumn(prev, common);
    const joinDescription = column !== undefined && indent === column && line.trim() !== "";
    if (joinParagraph || joinDescription) out[out.length - 1] = `${prev!.trimEnd()} ${line.trim()}`;
    else out.push(line);
  }
  return out;
}

function wrapLine(line: string, width: number, common: number | undefined): string[] {
  if (line.length <= width) return [line];
  // An option line: "  --flag VALUE   description"; else a paragraph with its own indentation.
  const column = descriptionColumn(line, common);
  const indent = column !== undefined ? " ".repeat(column) : (/^\s*/.exec(line)?.[0] ?? "");
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    let cut = rest.lastIndexOf(" ", width);
    if (cut <= indent.length) cut = rest.indexOf(" ", width);
    if (cut === -1) break;
    out.push(rest.slice(0, cut).trimEnd());
    rest = indent + rest.slice(cut + 1).trimStart();
  }
  out.push(rest);
  return out;
}
