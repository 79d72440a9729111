// Passwords on the command line's terms: from a pipe (--password-stdin) or typed at a prompt
// that does not echo them; never from a flag (it would show in the process list and history).

import { UsageError } from "./errors";

/**
 * Asks for a password on the terminal without echoing it (as ssh and sudo do): raw mode, one
 * character at a time; Enter ends it, Backspace deletes, Ctrl-C or Ctrl-D cancels.
 */
export function promptPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows, so nothing typed after it can be echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (): void => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") {
          finish();
          resolve(value);
          return;
        }
        if (char === "\u0003" || char === "\u0004") {
          finish();
          reject(new UsageError("no password given: the prompt was cancelled."));
          return;
        }
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on("data", onData);
  });
}

/** `--password-stdin`: the password from a pipe, without its final line break. */
export async function readPasswordFromStdin(command: string): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(
      `--password-stdin reads the password from a pipe, e.g. printf '%s' "$PASSWORD" | matframe ${command} --password-stdin ...`,
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}
