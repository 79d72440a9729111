// Prototype pollution shows as a new or changed property on a built-in prototype. These
// snapshots are compared before and after hostile input, in the process running the server.

const WATCHED: Array<[string, object]> = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
  ["RegExp.prototype", RegExp.prototype],
];

export type PrototypeSnapshot = Map<string, PropertyDescriptor | undefined>;

export function snapshotPrototypes(): PrototypeSnapshot {
  const snapshot: PrototypeSnapshot = new Map();
  for (const [name, proto] of WATCHED) {
    for (const key of Reflect.ownKeys(proto)) {
      snapshot.set(`${name}.${String(key)}`, Object.getOwnPropertyDescriptor(proto, key));
    }
  }
  return snapshot;
}

/** Properties added to, removed from or changed on a watched prototype since `before`. */
export function prototypeChanges(before: PrototypeSnapshot): string[] {
  const after = snapshotPrototypes();
  const changes: string[] = [];
  for (const [key, descriptor] of after) {
    const old = before.get(key);
    if (!old) changes.push(`added ${key}`);
    else if (old.value !== descriptor?.value || old.get !== descriptor?.get || old.set !== descriptor?.set)
      changes.push(`changed ${key}`);
  }
  for (const key of before.keys()) if (!after.has(key)) changes.push(`removed ${key}`);
  // A polluted prototype also shows on a fresh object.
  const probe = {} as Record<string, unknown>;
  for (const name of ["polluted", "isAdmin", "x", "a", "$where"]) {
    if (probe[name] !== undefined) changes.push(`({}).${name} is ${String(probe[name])}`);
  }
  return changes;
}
