// The plugin's tools as a model sees them (names, descriptions, parameters) and what each
// call runs. Parameters of the two local tools are the MCP server's input schemas
// (schemas.json, checked against openclaw_sessions/mcp/schemas.py by the tests), so an
// argument means the same thing over MCP and here; the server enforces them.

import { readFileSync } from "node:fs";

import {
  EngineError,
  callMcp,
  callerOf,
  childEnv,
  fleetArgv,
  mcpArgv,
  runJson,
} from "./engine.js";

const SCHEMAS = JSON.parse(readFileSync(new URL("./schemas.json", import.meta.url), "utf8"));

export const SEARCH = "past_sessions_search";
export const HISTORY = "past_sessions_history";
export const FLEET = "past_sessions_fleet_search";
export const TOOL_NAMES = [SEARCH, HISTORY, FLEET];

const WHEN =
  " Prefer it over sessions_search when the query is in Chinese, Japanese, Korean or Thai"
  + " (sessions_search never matches part of a CJK run), when the conversation may be in an"
  + " older generation of a session (before a /reset, an archived or cold transcript), or"
  + " when you have several angles on one question (queries: up to 8, one call).";

const SEARCH_DESCRIPTION =
  "Full-text search of past session transcripts (user and assistant text on each"
  + " session's active branch, every generation of it) that this session may see under"
  + " OpenClaw's session visibility rules, through the openclaw-sessions index."
  + WHEN
  + " Each whitespace-separated word must match (as a phrase); operators are literal text."
  + " Pass query, or queries (1-8 distinct angles on one question, searched together:"
  + " results interleaved, each hit with its queryIndex). limit applies per query; the"
  + " complete output is capped at 32 KiB. indexing: true means recent transcripts are"
  + " still being indexed: retry shortly. An empty answer explains itself in a second text"
  + ` block. Open a hit with ${HISTORY} (sessionKey, messageId, sessionId).`;

const HISTORY_DESCRIPTION =
  "Read a past session's conversation from the openclaw-sessions index (active branch,"
  + " redacted, capped at 80 KiB): the newest messages, pages further back with"
  + " offset/nextOffset, or a window around a hit of " + SEARCH + " with messageId (and its"
  + " sessionId, which also reaches older generations of the session). Only sessions this"
  + " session may see under OpenClaw's visibility rules can be read.";

const FLEET_DESCRIPTION =
  "Search the past sessions of every gateway in this fleet (a central database the"
  + " gateways push their redacted search index to), as this session: the same visibility"
  + " rules as " + SEARCH + ", applied on this gateway's host. Use it when the"
  + " conversation may have happened on another machine. One query (every word must"
  + " match); limit 1-25; output capped at 32 KiB.";

export const FLEET_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, maxLength: 4096, description: "Words to find." },
    sessionKey: { type: "string", description: "Search only this session." },
    limit: { type: "integer", minimum: 1, maximum: 25, description: "Maximum results." },
  },
  required: ["query"],
  additionalProperties: false,
};

/** A tool result: the answer's JSON text as the engine printed it, and its value. */
function result(details, text = JSON.stringify(details)) {
  return { content: [{ type: "text", text }], details };
}

/** Upstream's error shape, with the one line that says why. */
export function errorResult(message) {
  return result({ status: "error", error: `openclaw-sessions: ${message}` });
}

/** The MCP server's answer as it gave it: its text blocks verbatim, its JSON as details. */
function fromMcp(answer) {
  const content = (answer.content ?? []).filter((c) => c.type === "text");
  let details = answer.structuredContent;
  if (details === undefined) {
    try {
      details = JSON.parse(content[0]?.text);
    } catch {
      return errorResult("the MCP server answered without JSON");
    }
  }
  return { content: content.map((c) => ({ type: "text", text: c.text })), details };
}

/** The fleet tool's arguments, checked as strictly as the MCP server checks its own. */
export function fleetParams(params) {
  const p = params ?? {};
  for (const key of Object.keys(p)) {
    if (!(key in FLEET_SCHEMA.properties)) throw new EngineError(`unknown argument: ${key}`);
  }
  if (typeof p.query !== "string" || !p.query.trim() || p.query.length > 4096) {
    throw new EngineError("query must be a non-empty string of at most 4096 characters");
  }
  if (p.limit !== undefined && !(Number.isInteger(p.limit) && p.limit >= 1 && p.limit <= 25)) {
    throw new EngineError("limit must be a positive integer (at most 25)");
  }
  if (p.sessionKey !== undefined && (typeof p.sessionKey !== "string" || !p.sessionKey.trim())) {
    throw new EngineError("sessionKey must be a non-empty string");
  }
  return p;
}

async function guarded(run) {
  try {
    return await run();
  } catch (e) {
    if (e instanceof EngineError) return errorResult(e.message);
    throw e;
  }
}

/** The tools for one caller (OpenClaw builds them per session from its trusted context). */
export function buildTools(cfg, gatewayStateDir, ctx) {
  const caller = callerOf(ctx);
  if (!caller) return null; // no session, no identity: nothing to answer as
  const env = childEnv(cfg, gatewayStateDir);
  const opts = (signal) => ({ signal, timeoutMs: cfg.timeoutMs });
  const local = (name, mcpName, description, parameters) => ({
    name,
    label: name,
    description,
    parameters,
    async execute(_toolCallId, params, signal) {
      return guarded(async () =>
        fromMcp(await callMcp(mcpArgv(cfg, caller), env, mcpName, params ?? {}, opts(signal))),
      );
    },
  });
  const tools = [
    local(SEARCH, "sessions_search", SEARCH_DESCRIPTION, SCHEMAS.search),
    local(HISTORY, "sessions_history", HISTORY_DESCRIPTION, SCHEMAS.history),
  ];
  if (cfg.remote) {
    tools.push({
      name: FLEET,
      label: FLEET,
      description: FLEET_DESCRIPTION,
      parameters: FLEET_SCHEMA,
      async execute(_toolCallId, params, signal) {
        return guarded(async () => {
          const argv = fleetArgv(cfg, caller, fleetParams(params));
          const { body, text } = await runJson(argv, env, opts(signal));
          return result(body, text.trim());
        });
      },
    });
  }
  return tools;
}
