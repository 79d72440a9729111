import type { MaterialStore, StoredRecord } from "../records/store";
import { bankMaterialCollection, materialCollection } from "./bank-materials";
import type { Collection } from "./collection";
import { jobCollection } from "./jobs";
import { projectCollection } from "./projects";
import { metapropertyCollection, propertyCollection } from "./properties";
import { loadReferenceData, readDataFile, type ReferenceData } from "./reference-results";
import { workflowCollections } from "./workflows";

/** Every collection the local platform serves, by path segment, and the reference results. */
export interface PlatformCollections {
  collections: ReadonlyMap<string, Collection>;
  reference: ReferenceData;
}

/**
 * The collections beyond the served materials, from the checked-in data: the bank workflows
 * (data/bank-workflows.json) and the reference results (data/reference-*.json), whatever
 * materials `--data` serves.
 */
export function loadPlatformCollections(materials: MaterialStore, servedMaterials: readonly StoredRecord[], scanBudgetMs?: number): PlatformCollections {
  const bank = readDataFile<StoredRecord[]>("bank-workflows.json");
  const reference = loadReferenceData(bank);
  const list: Collection[] = [
    materialCollection(materials),
    bankMaterialCollection(servedMaterials, reference.materials, scanBudgetMs),
    ...workflowCollections(bank, scanBudgetMs),
    jobCollection(reference.jobs, scanBudgetMs),
    projectCollection([reference.project], scanBudgetMs),
    propertyCollection(reference.properties, scanBudgetMs),
    metapropertyCollection(),
  ];
  return { collections: new Map(list.map((collection) => [collection.name, collection])), reference };
}
