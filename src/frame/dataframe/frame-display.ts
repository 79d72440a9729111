// How a DataFrame shows itself as a cell's last value. danfo's DataFrame prints its internals
// through util.inspect; matframe gives its own frames a display once it loads
// danfo: the notebook module's table when `matframe/notebook` is loaded (HTML in tslab, a MIME
// bundle for Deno's kernel), else danfo's own text table (`toString()`).
import { inspect } from "node:util";

/** What `matframe/notebook` registers: how a frame displays as a cell value, and its MIME bundle. */
export interface FrameDisplay {
  inspect(frame: object, depth: number, options: object): string;
  bundle(frame: object): Record<string, string | object>;
}

let display: FrameDisplay | undefined;
const patched = new WeakSet<object>();

/** Registers the notebook's table display (called when `matframe/notebook` loads). */
export function setFrameDisplay(next: FrameDisplay): void {
  display = next;
}

/**
 * Gives matframe's frame prototype `[util.inspect.custom]` and `Jupyter.display`. Only frames
 * matframe made (and the frames their methods return) display this way; danfo's own DataFrame
 * class, which other code in the same process may use, is left as it is.
 */
export function patchFrameDisplay(proto: object): void {
  if (patched.has(proto)) return;
  patched.add(proto);
  Object.defineProperty(proto, inspect.custom, {
    configurable: true,
    writable: true,
    value(this: { toString(): string }, depth: number, options: object): string {
      return display ? display.inspect(this, depth, options) : this.toString();
    },
  });
  Object.defineProperty(proto, Symbol.for("Jupyter.display"), {
    configurable: true,
    writable: true,
    value(this: { toString(): string }): Record<string, string | object> {
      return display ? display.bundle(this) : { "text/plain": this.toString() };
    },
  });
}
