// The caches matframe keeps at module level, each with the hook that empties it and a count of
// what it holds. Test files that share a worker process share these modules: the shared-process
// guard empties them after each file, so no file's results depend on what ran before it.
import { memoryCacheEntries, resetMemoryCache } from "../../src/client/transport/response-cache";
import { clearCompiledProjections, compiledProjectionCount } from "../../src/server/query/projection";
import { clearSymmetryCache, symmetryCacheSize } from "../../src/structure/symmetry";

export interface ModuleCache {
  /** What a reader of a failure needs to find it. */
  readonly name: string;
  /** Entries it holds now. */
  size(): number;
  /** Empties it. */
  reset(): void;
}

export const MODULE_CACHES: readonly ModuleCache[] = [
  { name: 'the client\'s "memory" response cache', size: memoryCacheEntries, reset: resetMemoryCache },
  { name: "the symmetry cache (clearSymmetryCache)", size: symmetryCacheSize, reset: clearSymmetryCache },
  { name: "the server's compiled projections", size: compiledProjectionCount, reset: clearCompiledProjections },
];

/** Empties every module cache; returns the names of those that still hold entries after their reset. */
export function resetModuleCaches(caches: readonly ModuleCache[] = MODULE_CACHES): string[] {
  const left: string[] = [];
  for (const cache of caches) {
    cache.reset();
    if (cache.size() !== 0) left.push(cache.name);
  }
  return left;
}
