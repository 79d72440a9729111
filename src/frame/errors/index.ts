export { InvalidMethodError } from "./invalid-method-error";
export { TargetExistsError } from "./target-exists-error";
export { MissingDependencyError } from "./missing-dependency-error";
export { OutputError } from "./output-error";
