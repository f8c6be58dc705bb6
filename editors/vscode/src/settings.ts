// What the extension tells `fplint server` about the user's settings, kept
// free of the vscode module so that it is tested with node's own test runner.
import * as os from "node:os";
import * as path from "node:path";

/** The server's settings (its `initializationOptions` and
 * `workspace/didChangeConfiguration` keys). Every key is always sent, so
 * that clearing a setting clears it in the server too. */
export interface ServerSettings {
  /** The configuration file; "" for the nearest `fplint.toml`. */
  config: string;
  /** Rule codes or prefixes to run; [] for all (or the config's `select`). */
  select: string[];
  /** Rule codes or prefixes to skip. */
  ignore: string[];
}

/** The settings that, once changed, are sent to the running server. */
export const serverSettingKeys = ["config", "select", "ignore"] as const;

/** The server's settings from the `fplint.*` settings; `get` reads one
 * (VS Code's `WorkspaceConfiguration.get`). Values of the wrong type count
 * as unset rather than reaching the server. */
export function serverSettings(
  get: (key: string) => unknown,
  home: string = os.homedir(),
): ServerSettings {
  let config = get("config");
  config = typeof config === "string" ? config.trim() : "";
  if (config === "~" || (config as string).startsWith("~/")) {
    config = path.join(home, (config as string).slice(1));
  }
  return {
    config: config as string,
    select: strings(get("select")),
    ignore: strings(get("ignore")),
  };
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim());
}
