// Starts `fplint server` and hands it the files fplint reads; the server does
// all the work (diagnostics, hover, code actions).
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { serverCommand } from "./command";
import { serverSettingKeys, serverSettings } from "./settings";

// eksctl and manifests are YAML, CloudFormation YAML or JSON, Terraform HCL
// or .tf.json; `*.tf` is matched by pattern too, for when no Terraform
// extension gives it a language.
const documentSelector = [
  { scheme: "file", language: "yaml" },
  { scheme: "file", language: "json" },
  { scheme: "file", language: "jsonc" },
  { scheme: "file", language: "terraform" },
  { scheme: "file", language: "hcl" },
  { scheme: "file", pattern: "**/*.tf" },
  { scheme: "untitled", language: "yaml" },
  { scheme: "untitled", language: "json" },
];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("fplint", { log: true });
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("fplint.restart", () => restart()),
    vscode.commands.registerCommand("fplint.showOutput", () => output?.show()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("fplint.path") || e.affectsConfiguration("fplint.args")) {
        void restart();
      } else if (serverSettingKeys.some((key) => e.affectsConfiguration(`fplint.${key}`))) {
        // The server checks the open files again with the new settings.
        void client?.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { fplint: currentSettings() },
        });
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart()),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration("fplint");
  const resolved = serverCommand(config.get<string>("path"), config.get("args"), process.env);
  if (typeof resolved === "string") {
    output?.error(resolved);
    const choice = await vscode.window.showErrorMessage(resolved, "Open Settings");
    if (choice === "Open Settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "fplint.path");
    }
    return;
  }
  output?.info(`starting ${resolved.command} ${resolved.args.join(" ")}`);
  const serverOptions: ServerOptions = {
    command: resolved.command,
    args: resolved.args,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    outputChannel: output,
    initializationOptions: currentSettings(),
  };
  client = new LanguageClient("fplint", "fplint", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    const message = `fplint server did not start: ${err instanceof Error ? err.message : String(err)}`;
    output?.error(message);
    void vscode.window.showErrorMessage(message);
    client = undefined;
  }
}

function currentSettings() {
  const config = vscode.workspace.getConfiguration("fplint");
  return serverSettings((key) => config.get(key));
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    await running.stop();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}
