// module-format.js - is a JavaScript file CommonJS or an ES module?
//
// Node 22 answers this itself for a .js file without a package.json "type"
// (module syntax detection); Node 18, Debian 12's, always says CommonJS and
// fails on `import`.  run.js and esm-hooks.mjs ask here instead, with the
// same rules for every Node:
//
//   .mjs -> module, .cjs -> commonjs;
//   otherwise the nearest package.json's "type", when it has one;
//   otherwise the code decides: V8 compiles it as Node's CommonJS wrapper
//   function would (nothing runs).  It compiles: CommonJS.  It fails on
//   syntax only a module has (import/export statements, import.meta): a
//   module.  It fails on what a module accepts and that wrapper does not
//   (top-level await or for-await, a top-level `const require` ...): a
//   module if it compiles as the body of a strict async function.  Any
//   other error: CommonJS, so Node reports it as `node file.js` would.
//
// Parsing, not a pattern over the text: `import` in a string, a comment or
// a dynamic import() never makes a module.  The error messages are V8's,
// the same from Node 18 to 22; an unknown message falls back to CommonJS.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const WRAPPER_PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];

const MODULE_SYNTAX = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
];

const WRAPPER_REJECTS = [
  'await is only valid in async functions and the top level bodies of modules',
  'Unexpected reserved word', // for await (...) at the top level
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier 'module' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
];

// The message of the SyntaxError compile() throws, or null when it compiles.
function syntaxError(compile) {
  try {
    compile();
    return null;
  } catch (e) {
    if (e instanceof SyntaxError || (e && e.name === 'SyntaxError'))
      return String(e.message);
    throw e;
  }
}

// "module", "commonjs" or undefined: the "type" of the package.json
// nearest to dir, as Node reads it (the first one found decides).
function packageType(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    let text;
    try {
      text = fs.readFileSync(path.join(d, 'package.json'), 'utf8');
    } catch (e) {
      if (d === path.dirname(d))
        return undefined;
      continue;
    }
    try {
      const type = JSON.parse(text).type;
      return type === 'module' || type === 'commonjs' ? type : undefined;
    } catch (e) {
      return undefined; // Node refuses it later, with its own message
    }
  }
}

function sourceFormat(source, filename) {
  const asCommonJS = syntaxError(() => vm.compileFunction(source, WRAPPER_PARAMS, { filename }));
  if (asCommonJS === null)
    return 'commonjs';
  if (MODULE_SYNTAX.includes(asCommonJS))
    return 'module';
  if (!WRAPPER_REJECTS.includes(asCommonJS))
    return 'commonjs';
  // A hashbang is only legal as the very first line.
  const body = source.replace(/^\uFEFF?#!/, '//');
  const asModuleBody = syntaxError(
    () => new vm.Script('(async function () {"use strict";\n' + body + '\n})', { filename }));
  return asModuleBody === null || MODULE_SYNTAX.includes(asModuleBody) ? 'module' : 'commonjs';
}

// The format of file (whose text is source) under the rules above.
function moduleFormat(file, source) {
  const ext = path.extname(file);
  if (ext === '.mjs')
    return 'module';
  if (ext === '.cjs')
    return 'commonjs';
  return packageType(path.dirname(file)) || sourceFormat(source, file);
}

module.exports = { moduleFormat, packageType, sourceFormat };
