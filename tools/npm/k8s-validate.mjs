// k8s-validate.mjs - validate Kubernetes objects against the API's schemas.
//
//   node tools/npm/k8s-validate.mjs FILE...   (multi-document YAML; - is stdin)
//
// Each object is checked twice, both from the kubernetes-models package
// (the Kubernetes OpenAPI schemas, compiled):
//   1. its model's validate(): types, required fields, enums, formats;
//   2. unknown fields, which the schemas allow but the API server drops or
//      (kubectl --validate=strict) refuses: every key must be a property of
//      the type at that place, read from the models' type declarations,
//      so a typo such as `comand:` is an error, not a silently ignored key.
// Prints one JSON line per object ({"kind", "name", "errors": [...]}) and
// exits 1 if any object has an error.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import YAML from "yaml";

const require = createRequire(import.meta.url);
const modelsRoot = path.dirname(require.resolve("kubernetes-models/package.json"));
const nodeModules = path.dirname(modelsRoot);

// ------------------------------------------------------------ declarations

const parsed = new Map();

function parseDeclarations(file) {
  if (parsed.has(file)) return parsed.get(file);
  const text = fs.readFileSync(file, "utf8");
  const imports = {};
  for (const m of text.matchAll(/import \{([^}]*)\} from "([^"]+)";/g)) {
    let target = m[2];
    target = target.startsWith(".")
      ? path.resolve(path.dirname(file), target)
      : path.join(nodeModules, target);
    target = target.replace(/\.js$/, "") + ".d.ts";
    for (const name of m[1].split(",")) {
      const [orig, alias] = name.trim().split(/\s+as\s+/);
      if (orig) imports[(alias || orig).trim()] = { file: target, name: orig.trim() };
    }
  }
  const interfaces = {};
  const re = /^export interface (\w+)(?: extends ([^{]+))? \{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const props = {};
    for (const p of m[3].matchAll(/^ {4}"([^"]+)"\??: (.*?);?$/gm)) props[p[1]] = p[2];
    interfaces[m[1]] = { props, extends: (m[2] || "").split(",").map((s) => s.trim()).filter(Boolean) };
  }
  const aliases = {};
  for (const m of text.matchAll(/^export type \{ (\w+) as (\w+)/gm)) aliases[m[2]] = m[1];
  const result = { file, imports, interfaces, aliases };
  parsed.set(file, result);
  return result;
}

// The interface a type name denotes, seen from a declaration file.
function lookup(decl, name, depth = 0) {
  if (depth > 8) return null;
  if (decl.interfaces[name]) return { decl, iface: decl.interfaces[name], name };
  if (decl.aliases[name]) return lookup(decl, decl.aliases[name], depth + 1);
  const imp = decl.imports[name];
  if (imp && fs.existsSync(imp.file)) return lookup(parseDeclarations(imp.file), imp.name, depth + 1);
  return null;
}

function propsOf(found) {
  const props = { ...found.iface.props };
  for (const base of found.iface.extends) {
    if (base === "TypeMeta") Object.assign(props, { apiVersion: "string", kind: "string" });
    const b = lookup(found.decl, base);
    if (b) Object.assign(props, propsOf(b));
  }
  return props;
}

function unknownFields(value, type, decl, where, errors) {
  type = type.trim();
  const arr = type.match(/^Array<(.+)>$/);
  if (arr) {
    if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, arr[1], decl, `${where}/${i}`, errors));
    return;
  }
  if (!/^I?\w+$/.test(type)) return; // maps, unions, literals: no fixed keys
  const found = lookup(decl, type);
  if (!found || value === null || typeof value !== "object" || Array.isArray(value)) return;
  const props = propsOf(found);
  for (const [key, v] of Object.entries(value)) {
    if (!(key in props)) errors.push(`${where || "/"}: unknown field "${key}"`);
    else unknownFields(v, props[key], found.decl, `${where}/${key}`, errors);
  }
}

// ------------------------------------------------------------ objects

async function validate(obj) {
  const errors = [];
  const [group, version] = obj.apiVersion && obj.apiVersion.includes("/")
    ? obj.apiVersion.split("/") : [null, obj.apiVersion];
  const dir = group ? path.join(modelsRoot, group, version) : path.join(modelsRoot, version || "");
  const file = path.join(dir, `${obj.kind}.js`);
  if (!obj.apiVersion || !obj.kind || !fs.existsSync(file)) {
    return [`no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`];
  }
  const mod = await import(file);
  const Model = mod[obj.kind];
  try {
    new Model(obj).validate();
  } catch (e) {
    errors.push(...String(e.message).split(", ").map((s) => `schema: ${s}`));
  }
  const decl = parseDeclarations(path.join(dir, `${obj.kind}.d.ts`));
  unknownFields(obj, `I${obj.kind}`, decl, "", errors);
  return errors;
}

let failed = false;
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: k8s-validate.mjs FILE... (- for stdin)");
  process.exit(2);
}
for (const f of files) {
  const text = fs.readFileSync(f === "-" ? 0 : f, "utf8");
  for (const doc of YAML.parseAllDocuments(text)) {
    if (doc.errors.length) {
      failed = true;
      console.log(JSON.stringify({ file: f, errors: doc.errors.map((e) => `yaml: ${e.message}`) }));
      continue;
    }
    const obj = doc.toJS();
    if (obj === null) continue;
    const errors = await validate(obj);
    if (errors.length) failed = true;
    console.log(JSON.stringify({ kind: obj.kind, name: obj.metadata && obj.metadata.name, errors }));
  }
}
process.exit(failed ? 1 : 0);
