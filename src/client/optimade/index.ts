// The OPTIMADE client's surface; src/index.ts re-exports it by name.
export { OptimadeClient, OptimadeEntries } from "./optimade-client";
export type {
  OptimadeClientOptions,
  OptimadeIterateOptions,
  OptimadeProgress,
  ResolvedOptimadeWalk,
} from "./optimade-options";
export type { OptimadeDatabase, ResolvedProvider } from "./discovery";
