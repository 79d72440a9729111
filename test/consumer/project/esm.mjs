// ESM import of the CommonJS package: named exports resolve.
import { Client, API_VERSION } from "matframe";
import { startServer } from "matframe/server";
import { show } from "matframe/notebook";

console.log(
  JSON.stringify({ client: typeof Client.login, server: typeof startServer, version: API_VERSION, show: typeof show }),
);
