// The pseudopotentials this machine has (Debian's quantum-espresso-data by default), read from
// each UPF file's own header, and the choice of one per element for a workflow's method (`us`,
// `paw`, `nc`) and functional.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { generatedPseudopotentialDir } from "./pslibrary";

/**
 * Where pseudopotentials are looked for: `MATFRAME_PSEUDO_DIR` (a `path.delimiter`-separated
 * list), Debian's `quantum-espresso-data` folder, and the cache of ones generated with ld1.x.
 */
export function pseudopotentialDirs(): string[] {
  const extra = process.env.MATFRAME_PSEUDO_DIR?.split(path.delimiter).filter(Boolean) ?? [];
  return [...extra, "/usr/share/espresso/pseudo", generatedPseudopotentialDir()];
}

/** What a UPF header says about its pseudopotential, in the platform's words. */
export interface Pseudopotential {
  element: string;
  /** The platform's method subtype: `us`, `paw`, `nc`, or `nc-fr` for a fully relativistic one. */
  type: "us" | "paw" | "nc" | "nc-fr" | "coulomb";
  /** `pbe`, `pbesol`, `pz` (LDA), `blyp`, `tpss`, or the header's words in lower case. */
  functional: string;
  /** `gga` or `lda` where known. */
  approximation: string | undefined;
  /** A fully relativistic (spin-orbit) one, which a scalar calculation should not use. */
  fullyRelativistic: boolean;
  path: string;
  filename: string;
  /** The cutoffs the author suggests (Ry), when the header gives them. */
  suggestedCutoffs: { wavefunction: number; density: number } | undefined;
}

const FUNCTIONALS: [RegExp, string, string][] = [
  [/PBESOL|\bPSX\b|\bPSC\b/, "pbesol", "gga"],
  [/PBE|\bPBX\b|\bPBC\b/, "pbe", "gga"],
  [/BLYP|\bB88\b/, "blyp", "gga"],
  [/TPSS/, "tpss", "mgga"],
  [/\bPZ\b|\bPW\s*$|LDA/, "pz", "lda"],
];

function functionalOf(words: string): { functional: string; approximation: string | undefined } {
  const upper = words.toUpperCase().trim();
  for (const [pattern, functional, approximation] of FUNCTIONALS) {
    if (pattern.test(upper)) return { functional, approximation };
  }
  return { functional: upper.toLowerCase(), approximation: undefined };
}

function attribute(header: string, name: string): string | undefined {
  return new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`, "i").exec(header)?.[1]?.trim();
}

/** Reads the header of one UPF file (version 1 or 2); undefined for a file that is not one. */
export function readUpfHeader(file: string): Pseudopotential | undefined {
  let text: string;
  try {
    // The header is within the first few kilobytes; the whole file can be megabytes.
    text = readFileSync(file, "latin1").slice(0, 64 * 1024);
  } catch {
    return undefined;
  }
  const filename = path.basename(file);
  const header = /<PP_HEADER\b([^>]*?)\/?>/s.exec(text)?.[1];
  if (header !== undefined && /element\s*=/.test(header)) {
    const element = attribute(header, "element");
    if (!element) return undefined;
    const pseudoType = (attribute(header, "pseudo_type") ?? "").toUpperCase();
    const isPaw = attribute(header, "is_paw") ?? "";
    const isUs = attribute(header, "is_ultrasoft") ?? "";
    const isCoulomb = attribute(header, "is_coulomb") ?? "";
    const relativistic = attribute(header, "relativistic") ?? "";
    const type = /^t/i.test(isCoulomb)
      ? "coulomb"
      : pseudoType === "PAW" || /^t/i.test(isPaw)
        ? "paw"
        : pseudoType.startsWith("US") || /^t/i.test(isUs)
          ? "us"
          : "nc";
    const fullyRelativistic =
      relativistic === "full" || /^t/i.test(attribute(header, "has_so") ?? "") || /(^|[.-])rel-/.test(filename);
    const wfc = Number(attribute(header, "wfc_cutoff"));
    const rho = Number(attribute(header, "rho_cutoff"));
    return {
      element,
      type: type === "nc" && fullyRelativistic ? "nc-fr" : type,
      ...functionalOf(attribute(header, "functional") ?? ""),
      fullyRelativistic,
      path: file,
      filename,
      suggestedCutoffs: wfc > 0 && rho > 0 ? { wavefunction: wfc, density: rho } : undefined,
    };
  }
  const v1 = /<PP_HEADER>([\s\S]*?)<\/PP_HEADER>/.exec(text)?.[1];
  if (v1 === undefined) return undefined;
  const lines = v1.split("\n").map((line) => line.trim());
  const field = (label: RegExp) => lines.find((line) => label.test(line));
  const element = field(/\bElement\b/)?.split(/\s+/)[0];
  const typeWord = field(/pseudopotential/i)
    ?.split(/\s+/)[0]
    ?.toUpperCase();
  const xc = field(/Exchange-Correlation/)?.replace(/Exchange-Correlation functional/, "");
  if (!element || !typeWord) return undefined;
  const [wavefunction = 0, density = 0] =
    field(/Suggested cutoff/)
      ?.split(/\s+/)
      .map(Number) ?? [];
  const fullyRelativistic = /(^|[.-])rel-/.test(filename);
  const type = typeWord === "PAW" ? "paw" : typeWord === "US" ? "us" : "nc";
  return {
    element,
    type: type === "nc" && fullyRelativistic ? "nc-fr" : type,
    ...functionalOf(xc ?? ""),
    fullyRelativistic,
    path: file,
    filename,
    suggestedCutoffs: wavefunction > 0 && density > 0 ? { wavefunction, density } : undefined,
  };
}

let scanned: { key: string; list: Pseudopotential[] } | undefined;

/** Reads the folders again on the next look (after a pseudopotential was generated into one). */
export function forgetPseudopotentialScan(): void {
  scanned = undefined;
}

/** Every pseudopotential in the folders of `pseudopotentialDirs()`, read once per set of folders. */
export function availablePseudopotentials(): Pseudopotential[] {
  const dirs = pseudopotentialDirs();
  const key = dirs.join("\n");
  if (scanned?.key === key) return scanned.list;
  const list: Pseudopotential[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.upf$/i.test(name)) continue;
      const found = readUpfHeader(path.join(dir, name));
      if (found) list.push(found);
    }
  }
  scanned = { key, list };
  return list;
}

/**
 * The platform's functional name as the UPF headers say it: `lda` workflows use Perdew–Zunger
 * (`pz`), and the model may name the functional as a string or as `{ slug }`.
 */
export function normalizedFunctional(model: { subtype?: unknown; functional?: unknown }): string {
  const raw = model.functional;
  const name = typeof raw === "string" ? raw : typeof raw === "object" && raw ? (raw as { slug?: unknown }).slug : "";
  const functional = String(name ?? "").toLowerCase();
  if (functional === "" && model.subtype === "lda") return "pz";
  if (functional === "lda" || functional === "pw" || functional === "pz") return "pz";
  return functional;
}

/** Ranks candidates of the same element, type and functional: newer pslibrary, then plain names. */
function preference(p: Pseudopotential): [number, number, number] {
  const psl = /_psl\.(\d+)\.(\d+)\.(\d+)/.exec(p.filename);
  const version = psl ? Number(psl[1]) * 100 + Number(psl[2]) * 10 + Number(psl[3]) : -1;
  const special = /gipaw|coulomb|aewfc|_lb|-ae/i.test(p.filename) ? 1 : 0;
  return [-special, version, -p.filename.length];
}

function better(a: Pseudopotential, b: Pseudopotential): number {
  // Each rank is higher for the better one: plain (not special-purpose), newer, shorter name.
  const [plainA, versionA, shortA] = preference(a);
  const [plainB, versionB, shortB] = preference(b);
  return plainB - plainA || versionB - versionA || shortB - shortA || (a.filename < b.filename ? -1 : 1);
}

/** The choice for one element, or why there is none. */
export type PseudopotentialChoice =
  | { found: true; pseudopotential: Pseudopotential; why: string }
  | { found: false; reason: string };

/** Chooses the pseudopotential of `element` for a method subtype (`us`, `paw`, `nc`) and functional. */
export function choosePseudopotential(element: string, type: string, functional: string): PseudopotentialChoice {
  const all = availablePseudopotentials();
  const ofElement = all.filter((p) => p.element === element);
  const fits = ofElement
    .filter((p) => p.type === type && p.functional === functional && !p.fullyRelativistic)
    .sort(better);
  const [chosen] = fits;
  if (chosen) {
    const others =
      fits.length > 1
        ? `; preferred over ${fits
            .slice(1)
            .map((p) => p.filename)
            .join(", ")}`
        : "";
    return {
      found: true,
      pseudopotential: chosen,
      why: `${element}: ${chosen.filename} (${type}, ${functional}, from ${path.dirname(chosen.path)})${others}`,
    };
  }
  const where = pseudopotentialDirs().join(", ");
  const have =
    ofElement.length > 0
      ? ` This machine has for ${element} only ${ofElement.map((p) => `${p.filename} (${p.type}, ${p.functional})`).join(", ")}.`
      : ` This machine has none for ${element}.`;
  return {
    found: false,
    reason:
      `No ${type} pseudopotential for ${element} with the ${functional} functional in ${where}.${have}` +
      " Put a UPF file for it in a folder named by MATFRAME_PSEUDO_DIR, or set MATFRAME_PSLIBRARY to a checkout of" +
      " pslibrary (github.com/dalcorso/pslibrary) to generate one with ld1.x, or choose a workflow whose method fits one.",
  };
}

let records: { list: Pseudopotential[]; records: Record<string, unknown>[] } | undefined;

/**
 * ESSE-shaped metaproperty records (methods-directory/physical/psp/file) of what this machine
 * has; computed once per scan of the folders (each record carries its file's MD5).
 */
export function pseudopotentialRecords(): Record<string, unknown>[] {
  const list = availablePseudopotentials();
  if (records?.list !== list) records = { list, records: list.map(recordOf) };
  return structuredClone(records.records);
}

function recordOf(p: Pseudopotential): Record<string, unknown> {
  return {
    slug: "pseudopotential",
    source: { info: {}, type: "local" },
    data: {
      element: p.element,
      hash: createHash("md5").update(readFileSync(p.path)).digest("hex"),
      filename: p.filename,
      path: p.path,
      apps: ["espresso"],
      exchangeCorrelation: {
        functional: p.functional,
        ...(p.approximation ? { approximation: p.approximation } : {}),
      },
      name: "pseudopotential",
      source: p.path.startsWith("/usr/share/espresso") ? "debian quantum-espresso-data" : "local",
      type: p.type,
    },
  };
}
