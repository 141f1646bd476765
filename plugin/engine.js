// How the plugin reaches the openclaw-sessions engine: the command lines it runs (built from
// the trusted caller and the plugin config only; the model's arguments never become options)
// and the one-shot exchanges with them.
//
// Local tools talk to `openclaw-sessions mcp --as KEY` for exactly one call: the MCP server
// checks the arguments, runs the batch and says why an empty answer is empty, so the plugin's
// answers are the MCP server's byte for byte and no engine logic is copied into JavaScript.
// One process per call: the server pins openclaw.json when it starts, so a fresh process per
// call sees a config edit at once, as the built-in tools do. Fleet search runs
// `openclaw-sessions search --remote ... --as KEY --json` (the MCP server has no fleet tool).

import { spawn } from "node:child_process";

export const DEFAULT_COMMAND = "openclaw-sessions";
export const DEFAULT_TIMEOUT_MS = 30000;
const PROTOCOL_VERSION = "2025-06-18";
const MAX_STDERR_CHARS = 8192;

/** The plugin config, checked: unknown or mistyped keys are errors, never ignored. */
export function readConfig(raw) {
  const cfg = raw ?? {};
  const known = new Set(["command", "stateDir", "timeoutMs", "remote", "host"]);
  for (const key of Object.keys(cfg)) {
    if (!known.has(key)) throw new Error(`unknown plugin config key: ${key}`);
  }
  const command = cfg.command ?? DEFAULT_COMMAND;
  const argv = Array.isArray(command) ? command : [command];
  if (argv.length === 0 || !argv.every((a) => typeof a === "string" && a.length > 0)) {
    throw new Error("plugin config command must be a non-empty string or array of strings");
  }
  for (const key of ["stateDir", "remote", "host"]) {
    if (cfg[key] !== undefined && (typeof cfg[key] !== "string" || cfg[key] === "")) {
      throw new Error(`plugin config ${key} must be a non-empty string`);
    }
  }
  if (cfg.remote && !cfg.host) {
    // with --as the fleet database needs the caller's host: its sessions and its rules
    throw new Error("plugin config remote needs host (this gateway's name in the fleet database)");
  }
  const timeoutMs = cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new Error("plugin config timeoutMs must be a positive integer");
  }
  return { command: argv, stateDir: cfg.stateDir, timeoutMs, remote: cfg.remote, host: cfg.host };
}

/** Who calls, from OpenClaw's tool context only; null when the context names no session. */
export function callerOf(ctx) {
  const key = typeof ctx?.sessionKey === "string" ? ctx.sessionKey.trim() : "";
  if (!key) return null;
  let agent = typeof ctx.agentId === "string" && ctx.agentId.trim() ? ctx.agentId.trim() : "";
  if (!agent) {
    const m = /^agent:([^:]+):/i.exec(key);
    agent = m ? m[1].toLowerCase() : "main";
  }
  return { sessionKey: key, agentId: agent, sandboxed: ctx.sandboxed === true };
}

/** The caller's options, common to every command: `--opt=value` so that no value (a key
 * such as `-x`) can ever be read as an option. */
function callerArgs(cfg, caller) {
  const out = [`--as=${caller.sessionKey}`, `--agent=${caller.agentId}`];
  if (cfg.stateDir) out.push(`--state-dir=${cfg.stateDir}`);
  if (caller.sandboxed) out.push("--sandboxed");
  return out;
}

/** argv of the one-call MCP server for ``caller``. */
export function mcpArgv(cfg, caller) {
  return [...cfg.command, "mcp", ...callerArgs(cfg, caller)];
}

/** argv of a fleet search: the model's query after `--`, so it is never an option. */
export function fleetArgv(cfg, caller, params) {
  const argv = [...cfg.command, "search", ...callerArgs(cfg, caller)];
  argv.push(`--remote=${cfg.remote}`, `--host=${cfg.host}`);
  if (params.limit !== undefined) argv.push(`--limit=${params.limit}`);
  if (params.sessionKey !== undefined) argv.push(`--session=${params.sessionKey}`);
  argv.push("--json", "--", params.query);
  return argv;
}

/** The environment of a child: the gateway's own, with the state dir it uses when the
 * config names none (so the engine reads the same state root and openclaw.json). */
export function childEnv(cfg, gatewayStateDir, env = process.env) {
  const out = { ...env };
  if (!cfg.stateDir && gatewayStateDir && !out.OPENCLAW_STATE_DIR) {
    out.OPENCLAW_STATE_DIR = gatewayStateDir;
  }
  return out;
}

/** The one line that says why a child failed: its last `error: ...` line, else its last. */
export function reasonOf(stderr, fallback) {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const err = lines.filter((l) => l.startsWith("error:")).pop() ?? lines.pop();
  if (!err) return fallback;
  return err.replace(/^error:\s*/, "").replace(/\s*\(hint: .*\)$/, "").slice(0, 500);
}

class EngineError extends Error {}

function start(argv, env, signal, timeoutMs) {
  const child = spawn(argv[0], argv.slice(1), {
    env,
    shell: false,
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-MAX_STDERR_CHARS);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const onAbort = () => child.kill("SIGKILL");
  signal?.addEventListener("abort", onAbort, { once: true });
  const done = new Promise((resolve, reject) => {
    child.on("error", (e) =>
      reject(new EngineError(e.code === "ENOENT" ? `command not found: ${argv[0]}` : e.message)),
    );
    child.on("close", (code, sig) => resolve({ code, sig }));
  }).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
  return { child, done, stderr: () => stderr };
}

function failed(proc, status, timeoutMs) {
  if (status.sig === "SIGKILL") return new EngineError(`no answer within ${timeoutMs} ms`);
  return new EngineError(reasonOf(proc.stderr(), `exited with status ${status.code}`));
}

/** One tools/call on a fresh `mcp --as` process; the MCP result (content, structuredContent,
 * isError). Rejects with EngineError (one line) when the server gives no answer. */
export async function callMcp(argv, env, name, args, { signal, timeoutMs }) {
  const proc = start(argv, env, signal, timeoutMs);
  const send = (msg) => proc.child.stdin.write(`${JSON.stringify(msg)}\n`);
  proc.child.stdin.on("error", () => {}); // a server that exits early: its stderr says why
  let answer;
  let buf = "";
  proc.child.stdout.setEncoding("utf8");
  proc.child.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg.id === 1 && msg.result) {
        send({ jsonrpc: "2.0", method: "notifications/initialized" });
        send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } });
      } else if (msg.id === 2 || msg.id === 1) {
        answer = msg;
        proc.child.stdin.end(); // the server exits at end of input
      }
    }
  });
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "openclaw-sessions-plugin", version: "1" },
    },
  });
  const status = await proc.done;
  if (!answer) throw failed(proc, status, timeoutMs);
  if (answer.error) throw new EngineError(String(answer.error.message ?? "MCP error"));
  return answer.result;
}

/** One CLI run whose stdout is JSON (`search --json`); exit 0 (found) and 1 (nothing found)
 * are answers, and so is an error the CLI printed as upstream's `{status, error}`; the
 * value and the text it was printed as. */
export async function runJson(argv, env, { signal, timeoutMs }) {
  const proc = start(argv, env, signal, timeoutMs);
  proc.child.stdin.end();
  let out = "";
  proc.child.stdout.setEncoding("utf8");
  proc.child.stdout.on("data", (d) => {
    out += d;
  });
  const status = await proc.done;
  let body;
  try {
    body = JSON.parse(out);
  } catch {
    throw failed(proc, status, timeoutMs);
  }
  if (body === null || typeof body !== "object") throw failed(proc, status, timeoutMs);
  return { body, text: out };
}

export { EngineError };
