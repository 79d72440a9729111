// Structures as files: pure functions over material records, no I/O.
export {
  parametersToVectors,
  vectorsToParameters,
  fractionalToCartesian,
  cartesianToFractional,
  cellVolume,
} from "./cell";
export type { CellParameters, Matrix3, Vector3 } from "./cell";
export { cellOf, structureOf } from "./structure";
export type { StructureRecord, Structure, PlatformStructure } from "./structure";
export { toPoscar, fromPoscar } from "./poscar";
export { toCif, fromCif } from "./cif";
export { toXyz, fromXyz } from "./xyz";
export { symmetryOf, symmetryOrNull, conventionalOperations, clearSymmetryCache, DEFAULT_SYMPREC } from "./symmetry";
export type { Symmetry, SymmetryOptions, SymmetrySite, SymmetryOperation, CrystalSystem } from "./symmetry";
export { platformDerivedProperties, elementalRatios } from "./derived-properties";
export { pNorm } from "./p-norm";
export { toSymmetrizedCif } from "./cif-symmetrized";
export { standardCell, CELL_CHOICES } from "./standard-cell";
export type { CellChoice } from "./standard-cell";
export {
  STRUCTURE_FILE_FORMATS,
  STRUCTURE_FORMATS,
  IMPORT_FORMATS,
  structureFormat,
  isStructureFormat,
  isImportFormat,
} from "./formats";
export type { StructureFileFormat, StructureFormat, ImportFormat } from "./formats";
