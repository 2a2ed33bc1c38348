// run.js - runs a JavaScript program for /v1/execute and the sessions API
// (the manifest's execute.run):
//   node run.js MAIN [ARGS...]
// The program behaves as under `node MAIN ARGS...` on a Node that detects
// module syntax: its stdin is the job's, process.argv is [node, <entry>,
// ARGS...], a CommonJS entry is require.main, an ES module entry may use
// top-level await (an await that never settles exits 13, as Node does).
// Whether the entry is CommonJS or an ES module: module-format.js.
//
// The entry's file name lies in the working directory (/sandbox) even when
// the code was staged elsewhere (a session's /tmp, MAIN absolute), so
// relative require and import resolve in the workspace; ts/transpile.js
// does the same.  An ES module entry is loaded through esm-hooks.mjs, which
// hands Node the code under that name as a module.
'use strict';
const Module = require('module');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { moduleFormat } = require('./module-format.js');

function runCommonJS(file, source) {
  // What Module._load does for the entry, with the code we already hold.
  const m = new Module(file, null);
  m.id = '.';
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  process.mainModule = m;
  Module._cache[file] = m;
  // "commonjs": a Node that detects module syntax would otherwise retry
  // it as a module inside _compile, whatever package.json says.
  m._compile(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source, file, 'commonjs');
  m.loaded = true;
}

// Node detects module syntax itself from 22.7 and 20.19 on.  The hooks'
// thread costs 75 ms (Node 20) to 115 ms (Debian's Node 18) of CPU, so
// such a Node loads an entry that is where its name says by itself.
function nodeDetectsModules() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 7) || (major === 20 && minor >= 19);
}

function runModule(file, source, staged) {
  const url = pathToFileURL(file).href;
  // Without register (Node < 18.19) Node loads what it can: a .mjs file.
  if ((staged || !nodeDetectsModules()) && typeof Module.register === 'function')
    Module.register(pathToFileURL(path.join(__dirname, 'esm-hooks.mjs')), { data: { url, source } });
  const unsettled = () => {
    if (process.exitCode === undefined)
      process.exitCode = 13;
  };
  process.on('exit', unsettled);
  // A failure stays an unhandled rejection: Node prints it with the
  // program's own line, and exits 1.
  import(url).finally(() => process.off('exit', unsettled));
}

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node run.js MAIN [ARGS...]\n');
  process.exit(2);
}
const staged = path.isAbsolute(entry);
const file = staged ? path.join(process.cwd(), path.basename(entry)) : path.resolve(entry);
let source;
try {
  source = fs.readFileSync(entry, 'utf8');
} catch (e) {
  process.stderr.write('runcell: cannot read ' + entry + ': ' + e.message + '\n');
  process.exit(1);
}
process.argv.splice(1, 2, file);
if (moduleFormat(file, source) === 'module')
  runModule(file, source, staged);
else
  runCommonJS(file, source);
