import * as cdk from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { KubectlV33Layer } from '@aws-cdk/lambda-layer-kubectl-v33';
import { Construct } from 'constructs';

// The default capacity (a managed node group) runs CoreDNS and the node
// agent; only batch jobs go to Fargate.
export class MixedStack extends cdk.Stack {
  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);

    const cluster = new eks.Cluster(this, 'Cluster', {
      version: eks.KubernetesVersion.V1_33,
      kubectlLayer: new KubectlV33Layer(this, 'Kubectl'),
    });

    cluster.addFargateProfile('Batch', {
      fargateProfileName: 'batch',
      selectors: [{ namespace: 'batch', labels: { 'compute': 'fargate' } }],
    });

    cluster.addManifest('NodeAgent', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'node-agent', namespace: 'kube-system' },
      spec: {
        selector: { matchLabels: { app: 'node-agent' } },
        template: {
          metadata: { labels: { app: 'node-agent' } },
          spec: {
            containers: [{ name: 'agent', image: 'public.ecr.aws/docker/library/busybox:1.36', args: ['sleep', 'infinity'] }],
          },
        },
      },
    });
  }
}
