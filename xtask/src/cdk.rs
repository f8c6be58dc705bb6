//! A synthetic CDK app for benchmarks: an entry point, one stack with a
//! Fargate-only cluster, and N team modules it imports, each adding a
//! Deployment through a function that takes the cluster.

use crate::{write, Stats};
use std::path::Path;

/// Write a TypeScript CDK app of `files` source files under `root`: the
/// entry point `bin/app.ts` and `files - 1` modules `lib/team-N.ts`. Team 9
/// deploys into a namespace no profile selects: the app's one finding
/// (FP011, in `lib/team-9.ts`).
pub fn generate_cdk_app(root: &Path, files: u64) -> std::io::Result<Stats> {
    let mut stats = Stats::default();
    write(
        &mut stats,
        &root.join("cdk.json"),
        "{\n  \"app\": \"npx ts-node --prefer-ts-exts bin/app.ts\"\n}\n",
    )?;
    let teams = files.saturating_sub(1).max(10);
    let mut imports = String::new();
    let mut calls = String::new();
    for n in 1..=teams {
        let namespace = if n == 9 { "unselected" } else { "apps" };
        let text = format!(
            "import * as eks from 'aws-cdk-lib/aws-eks';\n\
             \n\
             const NAMESPACE = '{namespace}';\n\
             const LABELS = {{ app: 'team-{n}' }};\n\
             \n\
             export function addTeam{n}(cluster: eks.Cluster, replicas = 2): void {{\n\
             \x20 cluster.addManifest('Team{n}', {{\n\
             \x20   apiVersion: 'apps/v1',\n\
             \x20   kind: 'Deployment',\n\
             \x20   metadata: {{ name: `team-{n}`, namespace: NAMESPACE }},\n\
             \x20   spec: {{\n\
             \x20     replicas,\n\
             \x20     selector: {{ matchLabels: LABELS }},\n\
             \x20     template: {{\n\
             \x20       metadata: {{ labels: {{ ...LABELS }} }},\n\
             \x20       spec: {{\n\
             \x20         containers: [{{\n\
             \x20           name: 'api',\n\
             \x20           image: 'public.ecr.aws/nginx/nginx:1.27',\n\
             \x20           resources: {{ requests: {{ cpu: '250m', memory: '512Mi' }} }},\n\
             \x20         }}],\n\
             \x20       }},\n\
             \x20     }},\n\
             \x20   }},\n\
             \x20 }});\n\
             }}\n"
        );
        write(&mut stats, &root.join(format!("lib/team-{n}.ts")), &text)?;
        imports.push_str(&format!(
            "import {{ addTeam{n} }} from '../lib/team-{n}';\n"
        ));
        calls.push_str(&format!("    addTeam{n}(cluster);\n"));
    }
    let app = format!(
        "import * as cdk from 'aws-cdk-lib';\n\
         import * as eks from 'aws-cdk-lib/aws-eks';\n\
         import {{ Construct }} from 'constructs';\n\
         {imports}\n\
         class Platform extends cdk.Stack {{\n\
         \x20 constructor(scope: Construct, id: string) {{\n\
         \x20   super(scope, id);\n\
         \x20   const cluster = new eks.FargateCluster(this, 'Cluster', {{ version: eks.KubernetesVersion.V1_33 }});\n\
         \x20   cluster.addFargateProfile('Apps', {{ selectors: [{{ namespace: 'apps' }}] }});\n\
         {calls}\
         \x20 }}\n\
         }}\n\
         \n\
         const app = new cdk.App();\n\
         new Platform(app, 'Platform');\n"
    );
    write(&mut stats, &root.join("bin/app.ts"), &app)?;
    stats.findings = 1;
    Ok(stats)
}
