import * as path from 'path';
import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// The team's own chart, shipped as an asset, into a namespace that only
// the `tools` profile selects.
export class ToolsStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.FargateCluster(this, 'Cluster', {
      clusterName: 'tools',
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
    });

    cluster.addFargateProfile('Tools', {
      fargateProfileName: 'tools',
      selectors: [{ namespace: 'tools' }],
    });

    new eks.HelmChart(this, 'Toolbox', {
      cluster,
      chartAsset: new s3assets.Asset(this, 'ToolboxChart', {
        path: path.join(__dirname, '..', '..', 'chart'),
      }),
      release: 'toolbox',
      namespace: 'tools',
      values: { replicas: 2, hostNetwork: true },
    });
  }
}
