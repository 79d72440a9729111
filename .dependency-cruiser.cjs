// The house's one-way rooms (docs/development.md, "The map of the house"), checked on every
// import of src/: static, type-only, re-exports and dynamic import() alike. `npm run lint` runs it.
/** A rule that forbids imports from the rooms matching `from` into the rooms matching `to`. */
function oneWay(name, comment, from, to) {
  return { name, comment, severity: "error", from: { path: from }, to: { path: to } };
}

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import cycle makes a room impossible to read or load on its own.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "Every relative import names a file that exists.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^\\." },
    },
    oneWay(
      "server-is-upstream",
      "The local platform knows nothing of the client, the frames, the CLI or the notebooks.",
      "^src/server/",
      "^src/(client|frame|notebook|cli)/",
    ),
    oneWay(
      "client-knows-http-only",
      "The client talks HTTP: it imports neither the server nor tables, the CLI or the notebooks, not even a type.",
      "^src/client/",
      "^src/(server|frame|cli|notebook)/",
    ),
    oneWay(
      "frame-below-cli-and-notebook",
      "Frames turn records into tables and files; they never reach the server, the CLI or the notebooks.",
      "^src/frame/",
      "^src/(server|cli|notebook)/",
    ),
    oneWay(
      "ground-floor-is-pure",
      "Schemas and structure tools are the ground floor that every room imports.",
      "^src/(schemas|structure)/",
      "^src/(server|client|frame|notebook|cli)/",
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
