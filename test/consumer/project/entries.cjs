// Each product from its own entry: the root is the client and its tables, `matframe/server` the
// local platform, which the root no longer carries.
const root = require("matframe");
const server = require("matframe/server");

console.log(
  JSON.stringify({
    rootStartServer: "startServer" in root,
    rootClient: typeof root.Client,
    serverStartServer: typeof server.startServer,
  }),
);
