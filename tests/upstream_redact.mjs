// Upstream OpenClaw's own redactor, run in-process: reads a JSON list of strings on stdin and
// writes the list of redactToolPayloadText results (defaults, no config) as JSON on stdout.
// Usage: node upstream_redact.mjs <openclaw package dir>  (the test finds node and the package)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const dist = join(process.argv[2], "dist");
// The redact module's file name carries a build hash: find the one that exports the function.
const names = readdirSync(dist).filter((n) => /^redact-[A-Za-z0-9_-]+\.mjs$/.test(n));
let fn;
for (const n of names) {
  const mod = await import(pathToFileURL(join(dist, n)).href);
  if (typeof mod.redactToolPayloadTextWithConfig === "function") {
    fn = mod.redactToolPayloadTextWithConfig;
    break;
  }
}
if (!fn) {
  process.stderr.write("error: redactToolPayloadTextWithConfig not found in " + dist + "\n");
  process.exit(2);
}
const input = JSON.parse(readFileSync(0, "utf8"));
// An empty logging config: the defaults, without reading the user's openclaw.json.
const out = input.map((t) => fn(t, {}));
process.stdout.write(JSON.stringify(out));
