// Must NOT pass `deno check`: proves the types come from matframe's declarations, not `any`.
import { API_VERSION } from "matframe";

const wrong: number = API_VERSION;
console.log(wrong);
