// transpile.js - runs a TypeScript program the way tsx does: types are
// stripped, not checked (ts.transpileModule), into CommonJS, so top-level
// await is a SyntaxError.  Used by the manifest's execute.run for
// /v1/execute and the sessions API alike:
//   node transpile.js MAIN [ARGS...]
// The entry is compiled as a module whose file name lies in the working
// directory (/sandbox), so relative requires resolve against the workspace
// even when the code itself was staged elsewhere (a session's /tmp).  Other
// .ts files are compiled the same way when required.  The program sees
// process.argv = [node, <entry>, ARGS...] and its stdin is the job's; the
// entry is require.main, as under `node <entry>` (js/run.js does the same).
'use strict';
const Module = require('module');
const fs = require('fs');
const path = require('path');

let tsPath;
try {
  tsPath = require.resolve('typescript', {
    paths: ['/opt/runcell/node/node_modules', '/usr/share/nodejs', '/usr/lib/node_modules',
      '/usr/local/lib/node_modules'],
  });
} catch (e) {
  process.stderr.write('typescript is not installed\n');
  process.exit(127);
}
const ts = require(tsPath);

function transpile(src, fileName) {
  return ts.transpileModule(src, {
    fileName,
    reportDiagnostics: false,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      sourceMap: false,
    },
  }).outputText;
}

require.extensions['.ts'] = (m, filename) => {
  m._compile(transpile(fs.readFileSync(filename, 'utf8'), filename), filename);
};

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node transpile.js MAIN [ARGS...]\n');
  process.exit(2);
}
const file = path.isAbsolute(entry) ? path.join(process.cwd(), path.basename(entry))
  : path.resolve(process.cwd(), entry);
const m = new Module(file, null);
m.id = '.';
m.filename = file;
m.paths = Module._nodeModulePaths(path.dirname(file));
process.argv.splice(1, 2, file);
process.mainModule = m; // what the program's require.main reads
Module._cache[file] = m;
m._compile(transpile(fs.readFileSync(entry, 'utf8'), file), file, 'commonjs');
m.loaded = true;
