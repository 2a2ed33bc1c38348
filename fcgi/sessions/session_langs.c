/* session_langs.c - the nine languages of the sessions document.
 *
 * Each runs from one sh script (session_exec.c adds the prologue: stderr
 * merged into stdout, ulimits, the code written to $d under the job's
 * private /tmp, cwd /sandbox).  Compilers write only under $d, so nothing
 * is left in the session; interpreters get the session as their module
 * search root, so code can import files already in the session:
 *   - python: PYTHONPATH=/sandbox, -B so no __pycache__ appears there;
 *   - javascript: the code is read from stdin with cwd /sandbox, so
 *     relative specifiers resolve against the session; Node (20.19+)
 *     detects ES module syntax itself, top-level await included;
 *   - typescript: TypeScript's transpileModule strips the types without
 *     checking them (as tsx does) into CommonJS, compiled as a module whose
 *     file name lies in /sandbox; top-level await is a SyntaxError there,
 *     as the document says;
 *   - java: the single-file source launcher compiles in memory.
 * The toolchains are Debian's (and the TypeScript package that langs/
 * installs); c and bash have no langs/ directory of their own.
 */
#include "config.h"

#include "fcgi/sessions/session_exec.h"

#include <string.h>

/* helper.js for typescript: argv[2] is the source file. */
#define TS_HELPER                                                                                  \
  "'use strict';\n"                                                                                \
  "const Module = require('module');\n"                                                            \
  "const fs = require('fs');\n"                                                                    \
  "const path = require('path');\n"                                                                \
  "let tsPath;\n"                                                                                  \
  "try {\n"                                                                                        \
  "  tsPath = require.resolve('typescript', { paths: ['/opt/runcell/node/node_modules',\n"         \
  "    '/usr/share/nodejs', '/usr/lib/node_modules', '/usr/local/lib/node_modules'] });\n"         \
  "} catch (e) {\n"                                                                                \
  "  process.stderr.write('typescript is not installed\\n');\n"                                    \
  "  process.exit(127);\n"                                                                         \
  "}\n"                                                                                            \
  "const ts = require(tsPath);\n"                                                                  \
  "const src = fs.readFileSync(process.argv[2], 'utf8');\n"                                        \
  "const js = ts.transpileModule(src, { fileName: 'main.ts', reportDiagnostics: false,\n"          \
  "  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022,\n"         \
  "    esModuleInterop: true, sourceMap: false } }).outputText;\n"                                 \
  "const file = path.join(process.cwd(), 'main.ts');\n"                                            \
  "const m = new Module(file, null);\n"                                                            \
  "m.filename = file;\n"                                                                           \
  "m.paths = Module._nodeModulePaths(process.cwd());\n"                                            \
  "process.argv.splice(1, 2, file);\n"                                                             \
  "m._compile(js, file);\n"

static const struct rc_session_lang langs[] = {
  { "python", "main.py", "PYTHONPATH=/sandbox exec /usr/bin/python3 -B \"$d/main.py\"", NULL,
    "/usr/bin/python3" },
  { "bash", "main.sh", "exec /bin/bash \"$d/main.sh\"", NULL, "/bin/bash" },
  { "javascript", "main.js", "exec node - < \"$d/main.js\"", NULL, "node" },
  { "typescript", "main.ts", "exec node \"$d/helper.js\" \"$d/main.ts\"", TS_HELPER, "node" },
  { "c", "main.c", "gcc -std=gnu17 -O1 -pipe -o \"$d/main\" \"$d/main.c\" -lm && exec \"$d/main\"",
    NULL, "gcc" },
  { "cpp", "main.cpp",
    "g++ -std=gnu++20 -O1 -pipe -o \"$d/main\" \"$d/main.cpp\" && exec \"$d/main\"", NULL, "g++" },
  { "java", "Main.java",
    "exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xshare:auto "
    "\"$d/Main.java\"",
    NULL, "java" },
  { "csharp", "main.cs",
    "mcs -nologo -out:\"$d/main.exe\" \"$d/main.cs\" && exec mono \"$d/main.exe\"", NULL, "mcs" },
  { "rust", "main.rs",
    "rustc --edition 2021 -C opt-level=1 -o \"$d/main\" \"$d/main.rs\" && exec \"$d/main\"", NULL,
    "rustc" },
};

const struct rc_session_lang *
rc_session_lang_find (const char *name, size_t len)
{
  static const struct
  {
    const char *alias, *name;
  } aliases[] = { { "c++", "cpp" },       { "c#", "csharp" }, { "js", "javascript" },
                  { "ts", "typescript" }, { "py", "python" }, { "sh", "bash" } };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strlen (aliases[i].alias) == len && memcmp (aliases[i].alias, name, len) == 0)
      {
        name = aliases[i].name;
        len = strlen (name);
        break;
      }
  for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++)
    if (strlen (langs[i].name) == len && memcmp (langs[i].name, name, len) == 0)
      return &langs[i];
  return NULL;
}
