/** ESSE-shaped metaproperty records of the pseudopotentials this machine can run with. */
export function pseudopotentialRecords(): Record<string, unknown>[] {
  return [];
}
