// The units' own input templates are Jinja; nunjucks renders that dialect. The platform adds one
// filter, `sprintf` (underscore.string's, C-style), which the pw.x templates use for every number.
import nunjucks from "nunjucks";
import { MatframeError } from "../../errors";

/** C-style formatting of one value: `%f`, `%14.9f`, `%-3s`, `%d`, `%e`, `%g`, `%%`. */
export function sprintf(format: string, ...values: unknown[]): string {
  let next = 0;
  return format.replace(
    /%([-+0 ]*)(\d+)?(?:\.(\d+))?([fdiesgx%])/g,
    (_match, flags: string, width, precision, kind) => {
      if (kind === "%") return "%";
      const value = values[next++];
      const digits = precision === undefined ? 6 : Number(precision);
      let text: string;
      switch (kind) {
        case "f":
          text = Number(value).toFixed(digits);
          break;
        case "e":
          text = Number(value)
            .toExponential(digits)
            .replace(/e([+-])(\d)$/, "e$10$2");
          break;
        case "g":
          text = String(Number(Number(value).toPrecision(precision === undefined ? 6 : Math.max(1, digits))));
          break;
        case "d":
        case "i":
          text = String(Math.trunc(Number(value)));
          break;
        case "x":
          text = Math.trunc(Number(value)).toString(16);
          break;
        default:
          text = String(value ?? "");
          if (precision !== undefined) text = text.slice(0, digits);
      }
      if (flags.includes("+") && kind !== "s" && Number(value) >= 0) text = `+${text}`;
      const w = width === undefined ? 0 : Number(width);
      if (text.length >= w) return text;
      if (flags.includes("-")) return text.padEnd(w);
      if (flags.includes("0") && kind !== "s") {
        const sign = /^[+-]/.test(text) ? text.charAt(0) : "";
        return sign + text.slice(sign.length).padStart(w - sign.length, "0");
      }
      return text.padStart(w);
    },
  );
}

// A value the context does not give is an error, not an empty string: a template whose variables
// the engine does not fill yet (a magnetic run's labelled species) would give pw.x a broken input.
const environment = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
environment.addFilter("sprintf", (value: unknown, format: string) => sprintf(format, value));

/**
 * Renders a unit's template with its context; a template error names the template, and a value
 * the context does not give names the template's line that prints it.
 */
export function renderTemplate(name: string, content: string, context: Record<string, unknown>): string {
  try {
    return environment.renderString(content, context);
  } catch (error) {
    const message = (error as Error).message;
    const line = /\[Line (\d+), Column \d+\]\s*attempted to output null or undefined value/.exec(message)?.[1];
    const printed = line === undefined ? undefined : content.split("\n")[Number(line) - 1]?.trim();
    throw new MatframeError(
      printed === undefined
        ? `The input template ${name} does not render: ${message.replace(/\s+/g, " ").trim()}`
        : `The input template ${name} needs a value matframe serve does not give yet (line ${line}: ${printed}), so its program would get a broken input`,
      { cause: error },
    );
  }
}
