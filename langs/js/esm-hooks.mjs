// esm-hooks.mjs - Node module hooks registered by run.js when the entry is
// an ES module (Node >= 18.19 runs them on a thread of their own).
//
// - The entry's URL is run.js's file name for it (in /sandbox): it is
//   resolved and loaded as a module from the code run.js read, wherever
//   that was staged.
// - Any other .js file without a package.json "type" that an ES module
//   imports is a module when module-format.js says so, as a Node with
//   syntax detection would load it; everything else is Node's own loading.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const { packageType, sourceFormat } = createRequire(import.meta.url)('./module-format.js');

let entry = null; // {url, source}

export function initialize(data) {
  entry = data;
}

export async function resolve(specifier, context, nextResolve) {
  if (entry && specifier === entry.url)
    return { url: entry.url, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (entry && url === entry.url)
    return { format: 'module', source: entry.source, shortCircuit: true };
  if (url.startsWith('file:') && url.endsWith('.js')) {
    const file = fileURLToPath(url);
    if (packageType(path.dirname(file)) === undefined) {
      const source = fs.readFileSync(file, 'utf8');
      if (sourceFormat(source, file) === 'module')
        return { format: 'module', source, shortCircuit: true };
    }
  }
  return nextLoad(url, context);
}
