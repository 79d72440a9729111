// ESM import of the CommonJS package: named exports resolve.
import { Client, startServer, API_VERSION } from "matframe";
import { show } from "matframe/notebook";

console.log(
  JSON.stringify({ client: typeof Client.login, server: typeof startServer, version: API_VERSION, show: typeof show }),
);
