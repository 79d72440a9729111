// The default columns as issue 4 documents them, written out (not imported from src) so that a
// changed default fails the tests that check what users get.
export const DOCUMENTED_DEFAULT_COLUMNS = [
  "_id",
  "name",
  "formula",
  "method.type",
  "method.subtype",
  "lattice.a",
  "lattice.b",
  "lattice.c",
  "derivedProperties.volume",
  "derivedProperties.density",
];
