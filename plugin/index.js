// The OpenClaw plugin entry: registers the tools of tools.js as factories, so each is built
// for the calling session from OpenClaw's trusted tool context (sessionKey, agentId,
// sandboxed) and answers as exactly that caller. No argument a model passes names the caller.

import { readConfig } from "./engine.js";
import { TOOL_NAMES, buildTools } from "./tools.js";

export default {
  id: "openclaw-sessions",
  name: "OpenClaw Sessions",
  description:
    "Search and read past sessions through the openclaw-sessions index, as the calling session.",
  register(api) {
    const cfg = readConfig(api.pluginConfig); // a bad config fails the load, with its reason
    const gatewayStateDir = api.runtime?.state?.resolveStateDir?.();
    api.registerTool((ctx) => buildTools(cfg, gatewayStateDir, ctx), { names: TOOL_NAMES });
  },
};
