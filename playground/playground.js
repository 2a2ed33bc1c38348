// playground.js - the playground page (index.html): a program runs as a
// runcell process (POST /v1/processes), its events (GET .../events, an
// EventSource) are written to the terminal as they come, and what the user
// types goes to its stdin (POST .../stdin).
//
// Without "tty" the terminal edits a line locally, as a terminal in
// canonical mode would: Enter sends the line and a newline, Ctrl-D sends
// end of input, Ctrl-C a SIGINT.  With "tty" the program has a terminal of
// its own: every key goes to it as typed, and it echoes.
"use strict";

const SAMPLES = {
  python: "a = int(input('a? '))\nb = int(input('b? '))\nprint('sum:', a + b)\n",
  js: "const rl = require('readline').createInterface({ input: process.stdin });\n" +
    "const lines = [];\nrl.on('line', (l) => { lines.push(Number(l));\n" +
    "  if (lines.length === 2) { console.log('sum:', lines[0] + lines[1]); rl.close(); } });\n",
  bash: "read -r a; read -r b\necho \"sum: $((a + b))\"\n",
  c: "#include <stdio.h>\n\nint main(void)\n{\n  long a, b;\n  if (scanf(\"%ld %ld\", &a, &b) == 2)\n" +
    "    printf(\"sum: %ld\\n\", a + b);\n  return 0;\n}\n",
  cpp: "#include <iostream>\n\nint main()\n{\n  long a, b;\n  std::cin >> a >> b;\n" +
    "  std::cout << \"sum: \" << a + b << std::endl;\n}\n",
  ruby: "a = gets.to_i\nb = gets.to_i\nputs \"sum: #{a + b}\"\n",
  php: "<?php\n$a = (int) fgets(STDIN);\n$b = (int) fgets(STDIN);\necho \"sum: \", $a + $b, \"\\n\";\n",
};

const $ = (id) => document.getElementById(id);
const term = new Terminal({ convertEol: true, cursorBlink: true, fontSize: 13, scrollback: 5000 });
const fit = new FitAddon.FitAddon();
term.loadAddon(fit);
term.open($("terminal"));
fit.fit();

let languages = [];
let proc = null; // {id, events, tty, line, exited}

function status(text, kind) {
  $("status").textContent = text;
  $("status").className = kind || "";
}

async function api(method, path, body, raw) {
  const init = { method, headers: {} };
  if (raw !== undefined) {
    init.body = raw;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  return { status: r.status, json };
}

async function loadLanguages() {
  const r = await api("GET", "/v1/languages");
  if (r.status !== 200) { status("cannot list the languages", "error"); return; }
  languages = r.json.languages.filter((l) => l.available && l.main);
  const sel = $("language");
  for (const l of languages) {
    const o = document.createElement("option");
    o.value = l.language;
    o.textContent = l.version ? l.language + " (" + l.version.slice(0, 40) + ")" : l.language;
    sel.appendChild(o);
  }
  if (languages.some((l) => l.language === "python")) sel.value = "python";
  sel.addEventListener("change", () => { $("code").value = SAMPLES[sel.value] || ""; });
  $("code").value = SAMPLES[sel.value] || "";
  status("ready");
}

function describe(result) {
  if (result.stage === "compile") return ["compile error", "error"];
  if (result.limit) return ["stopped: " + result.limit + " limit", "error"];
  if (result.signal) return ["killed by " + result.signal, "error"];
  return ["exited with " + result.exitCode, result.exitCode === 0 ? "ok" : "error"];
}

function finish(p, text, kind) {
  p.exited = true;
  p.events.close(); // an EventSource would reconnect at the end of the stream
  $("run").disabled = false;
  $("stop").disabled = true;
  status(text, kind);
  term.write("\r\n\x1b[2m[" + text + "]\x1b[0m\r\n");
}

function subscribe(p) {
  const es = new EventSource("/v1/processes/" + p.id + "/events");
  p.events = es;
  es.addEventListener("stage", (e) => {
    const stage = JSON.parse(e.data).stage;
    status(stage === "compile" ? "compiling…" : "running");
    if (stage === "compile") term.write("\x1b[2m[compiling]\x1b[0m\r\n");
  });
  es.addEventListener("stdout", (e) => term.write(JSON.parse(e.data).data));
  es.addEventListener("stderr", (e) => term.write("\x1b[31m" + JSON.parse(e.data).data + "\x1b[0m"));
  es.addEventListener("exit", (e) => {
    const [text, kind] = describe(JSON.parse(e.data));
    finish(p, text, kind);
  });
  es.addEventListener("error", (e) => {
    // The stream's own error event carries data; a lost connection has
    // none (the browser reconnects with Last-Event-ID by itself).
    if (e.data) finish(p, "runcell failed: " + JSON.parse(e.data).error, "error");
  });
}

async function run() {
  if (proc && !proc.exited) return;
  const lang = languages.find((l) => l.language === $("language").value);
  if (!lang) return;
  const tty = $("tty").checked;
  term.reset();
  $("run").disabled = true;
  status("starting…");
  const r = await api("POST", "/v1/processes", {
    language: lang.language,
    files: [{ name: lang.main, content: $("code").value }],
    tty,
    limits: { wallTimeMs: Math.min(300000, lang.defaultLimits.wallTimeMs * 20), idleMs: 120000 },
  });
  if (r.status !== 201) {
    $("run").disabled = false;
    status((r.json && r.json.error) || "could not start (" + r.status + ")", "error");
    return;
  }
  proc = { id: r.json.id, tty, line: "", exited: false, events: null };
  $("stop").disabled = false;
  if (tty) resize();
  subscribe(proc);
  term.focus();
}

function send(data, eof) {
  if (!proc || proc.exited) return;
  api("POST", "/v1/processes/" + proc.id + "/stdin", { data, eof: !!eof }).then((r) => {
    if (r.status === 409 && proc && !proc.exited) term.write("\r\n\x1b[33m[" + r.json.error + "]\x1b[0m\r\n");
  });
}

// Keys: raw to a tty, edited line by line otherwise.
term.onData((data) => {
  if (!proc || proc.exited) return;
  if (proc.tty) { send(data); return; }
  for (const ch of data) {
    if (ch === "\r") {
      term.write("\r\n");
      send(proc.line + "\n");
      proc.line = "";
    } else if (ch === "\x7f" || ch === "\b") {
      if (proc.line.length) {
        proc.line = proc.line.slice(0, -1);
        term.write("\b \b");
      }
    } else if (ch === "\x04") {
      send(proc.line, true);
      proc.line = "";
    } else if (ch === "\x03") {
      api("POST", "/v1/processes/" + proc.id + "/signal", { signal: "SIGINT" });
    } else if (ch >= " " || ch === "\t") {
      proc.line += ch;
      term.write(ch);
    }
  }
});

function resize() {
  fit.fit();
  if (proc && proc.tty && !proc.exited) {
    api("POST", "/v1/processes/" + proc.id + "/resize", { rows: term.rows, cols: term.cols });
  }
}

$("run").addEventListener("click", run);
$("stop").addEventListener("click", () => { if (proc && !proc.exited) api("DELETE", "/v1/processes/" + proc.id); });
$("code").addEventListener("keydown", (e) => {
  if (e.key === "Tab") {
    e.preventDefault();
    const t = e.target, s = t.selectionStart;
    t.setRangeText("    ", s, t.selectionEnd, "end");
  } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});
window.addEventListener("resize", resize);
loadLanguages();
