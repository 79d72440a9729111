// The frame side of OPTIMADE; src/index.ts re-exports it by name.
export { OPTIMADE_COLUMNS } from "./optimade-rows";
export type {
  OptimadeTableProgress,
  OptimadeReadOptions,
  OptimadeFrameOptions,
  OptimadeArrowOptions,
  OptimadeCsvOptions,
  OptimadeNdjsonOptions,
  OptimadeParquetOptions,
  OptimadeStructureOptions,
} from "./optimade-io";
