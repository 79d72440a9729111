import type { MaterialStore, StoredRecord } from "../records/store";
import { bankMaterialCollection, materialCollection } from "./bank-materials";
import { chargeCollection } from "./charges";
import type { Collection } from "./collection";
import { jobCollection } from "./jobs";
import { projectCollection } from "./projects";
import { metapropertyCollection, propertyCollection } from "./properties";
import { loadReferenceData, readDataFile, type ReferenceData } from "./reference/reference-results";
import { makeSyntheticJobs, syntheticProject } from "./synthetic-jobs";
import { workflowCollections } from "./workflows";

/** Every collection the local platform serves, by path segment, and the reference results. */
export interface PlatformCollections {
  collections: ReadonlyMap<string, Collection>;
  reference: ReferenceData;
}

/**
 * The checked-in data, read once per process: every server started in it shares the records,
 * which nothing changes in place (a write stores a new object).
 */
let data: { bank: StoredRecord[]; reference: ReferenceData } | undefined;

function platformData(): { bank: StoredRecord[]; reference: ReferenceData } {
  if (!data) {
    const bank = readDataFile<StoredRecord[]>("bank-workflows.json");
    data = { bank, reference: loadReferenceData(bank) };
  }
  return data;
}

/**
 * The collections beyond the served materials, from the checked-in data: the bank workflows
 * (data/bank-workflows.json) and the reference results (data/reference-*.json), whatever
 * materials `--data` serves; with `--synthetic`, one result-less job per synthetic material.
 */
export function loadPlatformCollections(
  materials: MaterialStore,
  syntheticMaterials: readonly StoredRecord[],
  scanBudgetMs?: number,
): PlatformCollections {
  const { bank, reference } = platformData();
  const project = syntheticMaterials.length > 0 ? syntheticProject() : undefined;
  const synthetic = project ? makeSyntheticJobs(syntheticMaterials, bank, project) : [];
  // In the order the API's endpoint list names them.
  const list: Collection[] = [
    materialCollection(materials),
    ...workflowCollections(bank, scanBudgetMs),
    jobCollection(synthetic.length > 0 ? [...reference.jobs, ...synthetic] : reference.jobs, scanBudgetMs),
    projectCollection(project ? [reference.project, project] : [reference.project], scanBudgetMs),
    propertyCollection(reference.properties, scanBudgetMs),
    metapropertyCollection(scanBudgetMs),
    bankMaterialCollection(materials, reference.materials, scanBudgetMs),
    chargeCollection(),
  ];
  return { collections: new Map(list.map((collection) => [collection.name, collection])), reference };
}
