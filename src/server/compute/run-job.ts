import type { ComputeJobInput, ComputeOutcome } from "./index.js";

/**
 * Whether this machine can compute the workflow, without running anything (no pw.x on PATH: the
 * install hint; VASP or another non-free or absent application: why; an unsupported unit; no
 * pseudopotential for an element).
 */
export function computability(
  _workflow: Record<string, unknown>,
  _material?: Record<string, unknown>,
): { runnable: true } | { runnable: false; reason: string } {
  return { runnable: false, reason: "The compute engine is not built yet." };
}

/** Runs the job's units in order in its folder; never throws for a failed computation. */
export async function computeJob(_input: ComputeJobInput): Promise<ComputeOutcome> {
  return { status: "error", reason: "The compute engine is not built yet.", properties: [], files: [], notes: [] };
}
