// playground_browser.cjs - the browser half of t/http/playground.py: drives
// Debian's chromium with playwright-core (tools/npm) through the playground
// page and prints one JSON line per check for the Python side to assert.
//
//   node playground_browser.cjs BASE_URL SCREENSHOT_PATH
"use strict";
const path = require("path");
const tools = path.join(__dirname, "..", "..", "tools", "npm", "node_modules");
const { chromium } = require(path.join(tools, "playwright-core"));

const [base, screenshot] = process.argv.slice(2);
const report = (name, ok, detail) => console.log(JSON.stringify({ name, ok: !!ok, detail: detail || "" }));

async function terminalText(page) {
  return page.$eval("#terminal .xterm-rows", (el) => el.innerText);
}

async function waitStatus(page, pred, timeout) {
  const deadline = Date.now() + timeout;
  let text = "";
  while (Date.now() < deadline) {
    text = await page.$eval("#status", (el) => el.textContent);
    if (pred(text)) return text;
    await page.waitForTimeout(100);
  }
  return text;
}

async function run(page, language, code) {
  await page.selectOption("#language", language);
  await page.fill("#code", code);
  await page.click("#run");
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    // As root (CI) chromium's own sandbox cannot start; the page is ours.
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(base + "/playground");
    await page.waitForFunction(() => document.querySelectorAll("#language option").length > 0,
      null, { timeout: 20000 });
    const options = await page.$$eval("#language option", (os) => os.map((o) => o.value));
    report("languages", options.includes("python") && options.includes("c"), options.join(","));

    // Python: two lines in, their sum out.
    await run(page, "python", "a = int(input())\nb = int(input())\nprint('sum', a + b)\n");
    const started = await waitStatus(page, (s) => s === "running", 20000);
    report("running", started === "running", started);
    await page.click("#terminal");
    await page.keyboard.type("40");
    await page.keyboard.press("Enter");
    await page.keyboard.type("2");
    await page.keyboard.press("Enter");
    const done = await waitStatus(page, (s) => s.startsWith("exited") || s.includes("error"), 20000);
    const text = await terminalText(page);
    report("sum", /sum 42/.test(text) && done === "exited with 0", JSON.stringify({ done, text }));
    await page.screenshot({ path: screenshot });

    // C that does not compile: the page says so and shows the compiler.
    await run(page, "c", "int main(void)\n{\n  return nope;\n}\n");
    const failed = await waitStatus(page, (s) => s.startsWith("exited") || s.includes("error"), 60000);
    const diag = await terminalText(page);
    report("compile_error", failed === "compile error" && /nope/.test(diag) && /error/.test(diag),
      JSON.stringify({ failed, diag }));
    report("no_page_errors", errors.length === 0, errors.join("; "));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  report("browser", false, String(e && e.stack || e));
  process.exit(1);
});
