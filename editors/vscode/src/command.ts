// How the server is started, kept free of the vscode module so that it is
// tested with node's own test runner.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
}

export interface Environment {
  PATH?: string;
  PATHEXT?: string;
  HOME?: string;
}

/** The executable behind `setting`, or undefined when there is none. */
export function resolveExecutable(
  setting: string,
  env: Environment,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  let name = setting.trim();
  if (name === "") {
    name = "fplint";
  }
  if (name === "~" || name.startsWith("~/")) {
    name = path.join(env.HOME ?? os.homedir(), name.slice(1));
  }
  // A name with a separator is a path (relative ones are taken from the
  // current folder, as a shell does); a bare name is looked up on PATH.
  if (name.includes("/") || (platform === "win32" && name.includes("\\"))) {
    return isExecutable(name, platform) ? path.resolve(name) : undefined;
  }
  const sep = platform === "win32" ? ";" : ":";
  const exts =
    platform === "win32"
      ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";").filter((e) => e !== "")]
      : [""];
  for (const dir of (env.PATH ?? "").split(sep)) {
    if (dir === "") {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate, platform)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** The command line for the server, from the `fplint.path` and `fplint.args` settings. */
export function serverCommand(
  pathSetting: string | undefined,
  argsSetting: unknown,
  env: Environment,
  platform: NodeJS.Platform = process.platform,
): ServerCommand | string {
  const setting = pathSetting ?? "fplint";
  const command = resolveExecutable(setting, env, platform);
  if (command === undefined) {
    return `fplint was not found (fplint.path is "${setting}"). Install it (pipx install fplint) or set fplint.path to the executable.`;
  }
  let args = ["server"];
  if (Array.isArray(argsSetting) && argsSetting.every((a) => typeof a === "string")) {
    args = argsSetting as string[];
  }
  return { command, args };
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (platform !== "win32") {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}
